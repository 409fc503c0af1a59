"""Published mechanisms with reported privacy bugs, and their fixes, written against the seam.

Each function is the privacy-relevant step of a published implementation, as its bug report
describes it, asking its randomness through `test(query)` (`betweencut.noise`), so that the
release path samples it exactly and the proof path enumerates the same code
(`betweencut.proofs.baselines.corpus_checks.published` audits them; each row there cites its
report). A database is a tuple of records; each module-level constant below says what a record is.

* `noisy_max(scores, scale, test, flip)`: OpenDP's `make_noisy_max` (issue 2911): the
  exponential mechanism `P(i) ∝ e^(s_i/scale)` (`flip=False`) or permute-and-flip, which the
  library ran (`flip=True`); scores from records that move each score by `z_i - 1`.
* `label_release(db, test, labels)`: a model fitted per class over the label set, taken from
  the data (`labels=None`: diffprivlib's `classes = np.unique(y)`, issue 106) or given; each
  class's noisy count (discrete Laplace) stands for the per-class fit.
* `synthetic_category(db, test, domain)`: a synthetic category drawn by the exponential
  mechanism over the category counts, on a domain imputed from the data (`domain=None`: dpmm
  issue 24) or given.
* `covariance_1d(db, test, clip)`: smartnoise-synth's `DPcovariance.release` on one column with
  public bounds `[0, 1]` and public `n = 2`: `np.cov` (ddof 1) plus Laplace noise of scale
  `(2/n)(1 - 0)²/ε`, on the data as given (`clip=False`, issue 622) or clipped to the bounds.
* `jam_select(db, test, sensitivity)`: JAM's marginal selection (private-pgm issue 65): the
  exponential mechanism at scale `2·sensitivity/ε` on scores a record moves by up to 4.
* `bounded_histogram(db, test, bounds)`: PrivBayes-style noisy histogram of a numeric column on
  bins between bounds taken from the data (`bounds=None`: dpart, pull request 6) or given.
* `gaussian_count(db, test, sigma)`: a count plus `N(0, σ²)` (the Gaussian mechanism).
* `laplace_count(db, test, b)`: a count plus `Lap(b)` (the Laplace mechanism).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from fractions import Fraction
from typing import Any

from betweencut.baselines.svt_corpus import query_answers
from betweencut.noise import ExponentialMechanism, Noise, NoisyValue, PermuteAndFlip

__all__ = [
    "BOUNDS", "CATEGORIES", "COVARIANCE_N", "EPS", "JAM_MOVE", "LABELS", "bounded_histogram",
    "covariance_1d", "gaussian_count", "jam_select", "label_release", "laplace_count",
    "noisy_max", "synthetic_category",
]

EPS = Fraction(1)
LABELS = (0, 1, 2)  # a record is (label,)
CATEGORIES = (0, 1, 2)  # a record is (category,)
BOUNDS = (0, 3)  # a record is (value,), value in 0..3
COVARIANCE_N = 2  # DPcovariance's public n; a record is (value,)
JAM_MOVE = 4  # a JAM record (a, b), a, b in {0, 1, 2}, moves score i by 4(z_i - 1)


def noisy_max(db: Sequence[tuple[int, ...]], scale: Fraction, test: Any, flip: bool,
              m: int = 2) -> Hashable:
    """The index of the noisy max of `m` scores `q_i(D) = Σ (r_i - 1)` (records in
    `{0, 1, 2}^m`): permute-and-flip (`flip`) or the exponential mechanism, at `scale`."""
    scores = query_answers(db, m)
    query = PermuteAndFlip(scores, scale) if flip else ExponentialMechanism(scores, scale)
    return test(query)


def label_release(db: Sequence[tuple[int, ...]], test: Any,
                  labels: Sequence[int] | None = None, eps: Fraction = EPS) -> Hashable:
    """Per class of the label set (`labels`, or the labels present in `db`), its count plus
    discrete Laplace noise of scale `1/ε`: `(classes, noisy counts)`."""
    classes = tuple(sorted({r[0] for r in db})) if labels is None else tuple(labels)
    noise = Noise.discrete_laplace(1 / eps)
    return classes, tuple(test(NoisyValue(sum(1 for r in db if r[0] == c), noise))
                          for c in classes)


def synthetic_category(db: Sequence[tuple[int, ...]], test: Any,
                       domain: Sequence[int] | None = None, eps: Fraction = EPS) -> Hashable:
    """One synthetic category: the exponential mechanism (scale `2/ε`, counts of sensitivity 1)
    over `domain` (or the categories present in `db`; `None` when there are none)."""
    categories = tuple(sorted({r[0] for r in db})) if domain is None else tuple(domain)
    if not categories:
        return None
    counts = [sum(1 for r in db if r[0] == c) for c in categories]
    return categories[test(ExponentialMechanism(counts, 2 / eps))]


def _sample_variance(values: Sequence[Fraction]) -> Fraction:
    n = len(values)
    mean = sum(values, Fraction(0)) / n
    return sum(((v - mean) ** 2 for v in values), Fraction(0)) / (n - 1)


def covariance_1d(db: Sequence[tuple[int, ...]], test: Any, clip: bool,
                  eps: Fraction = EPS) -> Hashable:
    """`np.cov` of one column (ddof 1) plus `Lap((2/n)·(1 - 0)²/ε)`, `n = COVARIANCE_N`
    (`DPcovariance`'s public sensitivity for bounds `[0, 1]`); the values clipped to `[0, 1]`
    first only when `clip`."""
    values = [Fraction(min(max(r[0], 0), 1) if clip else r[0]) for r in db]
    sensitivity = Fraction(2, COVARIANCE_N)
    return test(NoisyValue(_sample_variance(values), Noise.laplace(sensitivity / eps)))


def jam_select(db: Sequence[tuple[int, ...]], test: Any, sensitivity: Fraction,
               eps: Fraction = EPS) -> Hashable:
    """JAM's selection: the exponential mechanism at scale `2·sensitivity/ε` over two scores
    `4·q_i(D)` (model error minus public error: each moves by up to 2, in either direction)."""
    scores = tuple(JAM_MOVE * q for q in query_answers(db, 2))
    return test(ExponentialMechanism(scores, 2 * sensitivity / eps))


def bounded_histogram(db: Sequence[tuple[int, ...]], test: Any,
                      bounds: tuple[int, int] | None = None, eps: Fraction = EPS) -> Hashable:
    """A noisy histogram (discrete Laplace, scale `1/ε`) on the integer bins between `bounds`
    (or the data's min and max; `None` on no data): `(bounds, noisy counts)`."""
    values = [r[0] for r in db]
    if bounds is None:
        if not values:
            return None
        bounds = (min(values), max(values))
    noise = Noise.discrete_laplace(1 / eps)
    low, high = bounds
    return bounds, tuple(test(NoisyValue(sum(1 for v in values if v == b), noise))
                         for b in range(low, high + 1))


def gaussian_count(db: Sequence[tuple[int, ...]], test: Any, sigma: Fraction) -> Hashable:
    """The number of records plus `N(0, σ²)`."""
    return test(NoisyValue(len(db), Noise.gaussian(sigma)))


def laplace_count(db: Sequence[tuple[int, ...]], test: Any, b: Fraction) -> Hashable:
    """The number of records plus `Lap(b)`."""
    return test(NoisyValue(len(db), Noise.laplace(b)))
