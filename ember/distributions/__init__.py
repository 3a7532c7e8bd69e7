"""torch.distributions: parametrized probability distributions (sampling with torch's random
streams, log_prob, entropy, moments) and kl_divergence. Normal, MultivariateNormal,
Uniform, Bernoulli, Categorical, OneHotCategorical,
Exponential, Laplace, Poisson and Independent so far."""
from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "Exponential", "ExponentialFamily",
           "Independent", "Laplace", "MultivariateNormal", "Normal", "OneHotCategorical",
           "Poisson", "Uniform", "constraints", "kl_divergence", "register_kl"]
