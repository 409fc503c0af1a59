"""The enumeration engine: the real mechanism run on every answer sequence, each with its
exact probability, and the laws kept per database.

* `transcripts`: fresh-noise `BTQuery` tests, answer sequences as factor bags
  (`enumerate_mechanism`, budgets and cost estimates);
* `cache`: `LawCache`, the engine's front (laws per database and projection), the databases and
  records it is asked about, and the enumeration kinds;
* `shared_noise`: the shared-noise primitives (SVT, noisy max), exact integrals of Laplace laws
  (`QueryLawCache`; registers itself as a kind); `gaussian_noise`: the same with Gaussian noise,
  certified laws (`GaussianLawCache`, registered first); `noise_kind`: the field's primitives
  (`betweencut.noise`: exponential mechanism, permute-and-flip, randomized response, released
  noisy values), exact laws split into components (`NoiseLawCache`);
* `query_laws`, `pair_classes`, `outcome_tree`: the shared-outcome-tree speed path
  (`SharedTreeCache`), tested equal to direct enumeration of the real code;
* `cost`: an audit's whole work projected from public inputs before any (`audit_cost`), for
  its time budget.

May import: core, `betweencut.proofs.exact`, `betweencut.proofs.laws`, `proofs.verdict`,
`proofs.registry` and `betweencut.proofs.privacy.divergence`.
"""

from betweencut.proofs.privacy.enumeration import (  # noqa: F401  (each registers its kind)
    gaussian_noise,
    isolated,  # registers how the user's code is enumerated in children (`cache.ISOLATED`)
    noise_kind,
    shared_noise,
)
from betweencut.proofs.privacy.enumeration.cache import (
    Database,
    LawCache,
    Mechanism,
    neighbouring_pairs,
)
from betweencut.proofs.privacy.enumeration.outcome_tree import SharedTreeCache
from betweencut.proofs.privacy.enumeration.shared_noise import QueryLawCache
from betweencut.proofs.privacy.enumeration.transcripts import enumerate_mechanism

__all__ = ["Database", "LawCache", "Mechanism", "QueryLawCache", "SharedTreeCache",
           "enumerate_mechanism", "neighbouring_pairs"]
