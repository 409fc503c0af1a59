"""The field's exact primitives behind the one seam `test(query)` (issue 37): Bernoulli with a
rational `p` or `p = e^(-x)`, uniform choice and permutation, the exponential mechanism and
permute-and-flip over given scores, randomized response and its k-ary form, and a released
noisy value (discrete Laplace or Gaussian on a count; continuous Laplace or Gaussian).

* `primitives`: the query values, their answers, the proof path's `ReplayNoise` and the opaque
  `Released` handle of a released value;
* `sampler`: the release path, `ExactNoiseSampler` (integer arithmetic and the CSPRNG only).

May import: the core basics (`errors`, `validate`, `bernoulli`, `gaussian`, `noisy_queries`).
"""

from betweencut.noise.primitives import (
    Bernoulli,
    BernoulliExp,
    ExponentialMechanism,
    KaryRandomizedResponse,
    Noise,
    NoisyValue,
    PermuteAndFlip,
    RandomizedResponse,
    Released,
    ReleasedUse,
    ReplayNoise,
    UniformChoice,
    UniformPermutation,
)
from betweencut.noise.sampler import ExactNoiseSampler, LazyValue

__all__ = [
    "Bernoulli", "BernoulliExp", "ExactNoiseSampler", "ExponentialMechanism",
    "KaryRandomizedResponse", "LazyValue", "Noise", "NoisyValue", "PermuteAndFlip",
    "RandomizedResponse", "Released", "ReleasedUse", "ReplayNoise", "UniformChoice",
    "UniformPermutation",
]
