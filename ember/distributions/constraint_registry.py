"""biject_to and transform_to: from a constraint to a transform that maps unconstrained reals
onto it (biject_to: bijective, for change of variables; transform_to: any such map), looked up
by the constraint's type; ``register`` adds factories."""
import numbers

from . import constraints, transforms

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """Factories ``constraint -> transform``, one per constraint type."""

    def __init__(self):
        self._registry = {}

    def register(self, constraint, factory=None):
        """Add ``factory`` for a constraint type (or an instance's type); a decorator when the
        factory is left out."""
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint,
                                                              constraints.Constraint):
            raise TypeError(f"Expected constraint to be either a Constraint subclass or "
                            f"instance, but got {constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint):
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} "
                                      f"constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _register_both(*kinds):
    def decorator(factory):
        for kind in kinds:
            biject_to.register(kind, factory)
            transform_to.register(kind, factory)
        return factory
    return decorator


@_register_both(constraints.real)
def _to_real(constraint):
    return transforms.identity_transform


@_register_both(constraints.positive, constraints.nonnegative)
def _to_greater_than(constraint):
    """exp, shifted to the lower bound (positive and nonnegative are greater-than constraints:
    the later registration of their type wins, as in torch)."""
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.lower_bound, 1)])


@_register_both(constraints.less_than)
def _to_less_than(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.upper_bound, -1)])


@_register_both(constraints.unit_interval, constraints.half_open_interval(0.0, 1.0))
def _to_interval(constraint):
    """sigmoid, scaled to the interval unless it is [0, 1]."""
    low, high = constraint.lower_bound, constraint.upper_bound
    if isinstance(low, numbers.Number) and low == 0 and isinstance(high, numbers.Number) and \
            high == 1:
        return transforms.SigmoidTransform()
    return transforms.ComposeTransform([transforms.SigmoidTransform(),
                                        transforms.AffineTransform(low, high - low)])


@biject_to.register(constraints.independent)
def _biject_to_independent(constraint):
    return transforms.IndependentTransform(biject_to(constraint.base_constraint),
                                           constraint.reinterpreted_batch_ndims)


@transform_to.register(constraints.independent)
def _transform_to_independent(constraint):
    return transforms.IndependentTransform(transform_to(constraint.base_constraint),
                                           constraint.reinterpreted_batch_ndims)


@biject_to.register(constraints.simplex)
def _biject_to_simplex(constraint):
    return transforms.StickBreakingTransform()


@transform_to.register(constraints.simplex)
def _transform_to_simplex(constraint):
    return transforms.SoftmaxTransform()


@transform_to.register(constraints.lower_cholesky)
def _transform_to_lower_cholesky(constraint):
    return transforms.LowerCholeskyTransform()


@transform_to.register(constraints.positive_definite)
@transform_to.register(constraints.positive_semidefinite)
def _transform_to_positive_definite(constraint):
    return transforms.PositiveDefiniteTransform()


@_register_both(constraints.corr_cholesky)
def _to_corr_cholesky(constraint):
    return transforms.CorrCholeskyTransform()


@biject_to.register(constraints.cat)
def _biject_to_cat(constraint):
    return transforms.CatTransform([biject_to(c) for c in constraint.cseq], constraint.dim,
                                   constraint.lengths)


@transform_to.register(constraints.cat)
def _transform_to_cat(constraint):
    return transforms.CatTransform([transform_to(c) for c in constraint.cseq], constraint.dim,
                                   constraint.lengths)


@biject_to.register(constraints.stack)
def _biject_to_stack(constraint):
    return transforms.StackTransform([biject_to(c) for c in constraint.cseq], constraint.dim)


@transform_to.register(constraints.stack)
def _transform_to_stack(constraint):
    return transforms.StackTransform([transform_to(c) for c in constraint.cseq], constraint.dim)
