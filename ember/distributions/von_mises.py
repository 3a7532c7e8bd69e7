"""VonMises(loc, concentration): the circular normal distribution, density
exp(k cos(x - loc)) / (2 pi I0(k)) over angles."""
import math

import ember

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]


def _log_bessel_i0(x):
    """log I0(x) = x + log(i0e(x)) for x > 0 (finite however large x is)."""
    return x + ember.special.i0e(x).log()


def _rejection_sample(loc, concentration, proposal_r, x):
    """Best and Fisher's wrapped-Cauchy rejection sampler (torch's order of draws: three
    uniforms per element and round, until every element is accepted)."""
    done = ember.zeros(x.shape, dtype=ember.bool)
    while not bool(done.all()):
        u1, u2, u3 = ember.rand((3,) + tuple(x.shape), dtype=loc.dtype).unbind()
        z = ember.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        if bool(accept.any()):
            x = ember.where(accept, (u3 - 0.5).sign() * f.acos(), x)
            done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """Angles (in radians, read modulo 2 pi) around ``loc``, tighter as ``concentration``
    grows; mean and variance are the circular ones."""
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, (), validate_args)

    def expand(self, batch_shape, _instance=None):
        shape = ember.Size(batch_shape)
        return self._expanded(shape, loc=self.loc.expand(shape),
                              concentration=self.concentration.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.concentration * ember.cos(value - self.loc) - math.log(2 * math.pi) - \
            _log_bessel_i0(self.concentration)

    @lazy_property
    def _proposal_r(self):
        """The wrapped-Cauchy envelope's r (in float64; 1/k + k below k = 1e-5)."""
        kappa = self.concentration.double()
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        return ember.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))

    def sample(self, sample_shape=()):
        """Drawn in float64 whatever the dtype (torch's guard against a hang for small k)."""
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            x = ember.zeros(shape, dtype=ember.float64)
            return _rejection_sample(self.loc.double(), self.concentration.double(),
                                     self._proposal_r, x).to(self.loc.dtype)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        """1 - I1(k) / I0(k)."""
        return 1 - ember.special.i1e(self.concentration) / ember.special.i0e(self.concentration)
