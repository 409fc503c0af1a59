"""Test-suite configuration: the Hypothesis profile comes from `$HYPOTHESIS_PROFILE`
(`dev` by default; CI sets `ci`; `thorough` for long searches), see
`betweencut.properties.profiles`."""

from betweencut.properties.profiles import load_profile_from_env

load_profile_from_env()
