"""Chi2(df): Gamma(df / 2, 1 / 2), the sum of df squared standard normals."""
from . import constraints
from .gamma import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    """The chi-squared distribution of ``df`` degrees of freedom."""
    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    @property
    def df(self):
        return self.concentration * 2

