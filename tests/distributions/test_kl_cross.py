"""The KL pairs between different families (ember/distributions/_kl_cross.py): every pair torch
registers among ember's distributions, values and gradients (inf where p's support leaves q's),
compared with torch 2.13."""
import pytest

from ._oracle import same_as_torch


def _make(m, D, name, dtype, leaves):
    def t(*values):
        leaves.append(m.tensor(values, dtype=dtype).requires_grad_())
        return leaves[-1]
    made = {
        "Normal": lambda: D.Normal(t(0.3, -1.0, 0.5), t(1.2, 0.7, 2.0)),
        "Laplace": lambda: D.Laplace(t(0.3, -1.0, 0.5), t(1.2, 0.7, 2.0)),
        "Gumbel": lambda: D.Gumbel(t(0.3, -1.0, 0.5), t(1.2, 0.7, 2.0)),
        "Exponential": lambda: D.Exponential(t(0.5, 1.5, 3.0)),
        "Gamma": lambda: D.Gamma(t(0.5, 2.0, 4.0), t(1.5, 0.5, 2.0)),
        "Beta": lambda: D.Beta(t(0.5, 2.0, 4.0), t(1.5, 0.8, 2.0)),
        "Pareto": lambda: D.Pareto(t(0.5, 1.0, 2.0), t(0.8, 1.5, 3.0)),
        "Uniform": lambda: D.Uniform(t(0.1, 0.2, -0.5), t(0.9, 3.0, 0.5)),
        "Poisson": lambda: D.Poisson(t(0.5, 2.0, 4.0)),
        "Bernoulli": lambda: D.Bernoulli(t(0.2, 0.5, 0.9)),
        "Binomial": lambda: D.Binomial(5, t(0.2, 0.5, 0.9)),
    }
    return made[name]()


_PAIRS = [("Normal", "Gumbel"), ("Normal", "Laplace"), ("Normal", "Beta"), ("Normal", "Gamma"),
          ("Normal", "Exponential"), ("Normal", "Pareto"), ("Normal", "Uniform"),
          ("Gumbel", "Normal"), ("Gumbel", "Beta"), ("Gumbel", "Gamma"), ("Gumbel", "Uniform"),
          ("Gumbel", "Exponential"), ("Gumbel", "Pareto"),
          ("Laplace", "Normal"), ("Laplace", "Beta"), ("Laplace", "Gamma"),
          ("Laplace", "Exponential"), ("Laplace", "Pareto"), ("Laplace", "Uniform"),
          ("Exponential", "Normal"), ("Exponential", "Gumbel"), ("Exponential", "Gamma"),
          ("Exponential", "Beta"), ("Exponential", "Pareto"), ("Exponential", "Uniform"),
          ("Gamma", "Normal"), ("Gamma", "Gumbel"), ("Gamma", "Exponential"), ("Gamma", "Beta"),
          ("Gamma", "Pareto"), ("Gamma", "Uniform"),
          ("Beta", "Normal"), ("Beta", "Gamma"), ("Beta", "Exponential"), ("Beta", "Uniform"),
          ("Beta", "Pareto"),
          ("Pareto", "Normal"), ("Pareto", "Gamma"), ("Pareto", "Exponential"),
          ("Pareto", "Beta"), ("Pareto", "Uniform"),
          ("Uniform", "Normal"), ("Uniform", "Gumbel"), ("Uniform", "Gamma"),
          ("Uniform", "Beta"), ("Uniform", "Exponential"), ("Uniform", "Pareto"),
          ("Poisson", "Bernoulli"), ("Poisson", "Binomial"), ("Bernoulli", "Poisson")]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("pair", _PAIRS, ids="-".join)
def test_cross_family_kl_matches_torch(pair, dtype):
    def build(m, D):
        leaves = []
        p, q = (_make(m, D, name, getattr(m, dtype), leaves) for name in pair)
        kl = D.kl_divergence(p, q)
        if not (kl.requires_grad and bool(kl.isfinite().all())):
            return [kl]
        kl.sum().backward()
        return [kl, [leaf.grad for leaf in leaves]]
    same_as_torch(build)
