"""Noise and sampling: every seam through which a mechanism asks for randomness, the exact
samplers of the release path and the proof path's replays (principle 2: the code that runs is
the code checked).

* `noisy_test`: the BT seam (`Outcome`, `BTQuery`, `NoisyTest`, `ReplayTest`, `RecordingTest`,
  `UnansweredQuery`);
* `bt_sampler`: `ExactSampler`, BT outcomes drawn exactly with integer arithmetic only;
  `padded_sampler`: one GuardedBT draw whose work does not depend on the private count;
* `bernoulli`, `gaussian`: exact Bernoulli and Gaussian draws (integer arithmetic, the CSPRNG);
* `noisy_queries`: the shared-noise primitives (`DrawNoise`, `AboveThreshold`, `NoisyMax`),
  `ExactQuerySampler` and `ReplayQueries`; `answers`: the symbolic query answers of the
  oblivious run;
* the field's exact primitives behind the one seam `test(query)` (Bernoulli with a rational `p`
  or `p = e^(-x)`, uniform choice and permutation, the exponential mechanism and
  permute-and-flip, randomized response, a released noisy value): `primitives` (the query
  values, their answers, `ReplayNoise`, the opaque `Released` handle) and `sampler`
  (`ExactNoiseSampler`, their release path).

May import: the top-level plumbing (`betweencut.errors`, `betweencut.progress`),
`betweencut.numbers` and `betweencut.data`. Never the mechanism, the baselines, the engines, the
composition layers, `proofs` or `properties`.
"""

from typing import TYPE_CHECKING

from betweencut import lazy_exports

if TYPE_CHECKING:
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

_WHERE = {
    "Bernoulli": "betweencut.noise.primitives",
    "BernoulliExp": "betweencut.noise.primitives",
    "ExactNoiseSampler": "betweencut.noise.sampler",
    "ExponentialMechanism": "betweencut.noise.primitives",
    "KaryRandomizedResponse": "betweencut.noise.primitives",
    "LazyValue": "betweencut.noise.sampler",
    "Noise": "betweencut.noise.primitives",
    "NoisyValue": "betweencut.noise.primitives",
    "PermuteAndFlip": "betweencut.noise.primitives",
    "RandomizedResponse": "betweencut.noise.primitives",
    "Released": "betweencut.noise.primitives",
    "ReleasedUse": "betweencut.noise.primitives",
    "ReplayNoise": "betweencut.noise.primitives",
    "UniformChoice": "betweencut.noise.primitives",
    "UniformPermutation": "betweencut.noise.primitives",
}
__all__ = [
    "Bernoulli", "BernoulliExp", "ExactNoiseSampler", "ExponentialMechanism",
    "KaryRandomizedResponse", "LazyValue", "Noise", "NoisyValue", "PermuteAndFlip",
    "RandomizedResponse", "Released", "ReleasedUse", "ReplayNoise", "UniformChoice",
    "UniformPermutation",
]


# imported on first use: importing the seam `noisy_test` (which the mechanism does) does not load
# the field's primitives and their sampler
__getattr__, __dir__ = lazy_exports(__name__, _WHERE)
