"""Named Hypothesis settings ("profiles") for the property suite: `dev`, `ci`, `thorough`.

`dev` is quick (local edits), `ci` is deterministic (`derandomize=True`: the same examples on
every CI run, so a red build is reproducible), `thorough` searches long (`-m slow` runs, before a
release). Select one with the environment variable `HYPOTHESIS_PROFILE` through
`load_settings_from_env()` (the test suite's `conftest.py` does this). `mutation` is for
`bench/mutation.py` only: deterministic and without shrinking, since a mutant is killed by
any failure and a shrunk counterexample is not needed.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings

NAMES = ("dev", "ci", "thorough", "mutation")
ENV_VAR = "HYPOTHESIS_PROFILE"
_QUIET_CHECKS = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile(
    "dev", max_examples=30, deadline=None, suppress_health_check=_QUIET_CHECKS
)
settings.register_profile(
    "ci", max_examples=100, deadline=None, derandomize=True, print_blob=True,
    suppress_health_check=_QUIET_CHECKS,
)
settings.register_profile(
    "thorough", max_examples=2000, deadline=None, suppress_health_check=_QUIET_CHECKS
)

settings.register_profile(
    "mutation", max_examples=30, deadline=None, derandomize=True, database=None,
    phases=[Phase.explicit, Phase.generate], suppress_health_check=_QUIET_CHECKS,
)


def load_settings_from_env(default: str = "dev") -> str:
    """Load the profile named by `$HYPOTHESIS_PROFILE` (else `default`) and return its name.

    An unknown name is refused with the list of known ones (Hypothesis raises `InvalidArgument`).
    """
    name = os.environ.get(ENV_VAR, default)
    settings.load_profile(name)
    return name
