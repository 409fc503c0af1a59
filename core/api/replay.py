"""Is a user's mechanism a function of the answers of its noisy tests? Each run, replayed.

The enumeration (`betweencut.proofs.privacy.enumeration`) turns a mechanism into its exact
output law by running it on every answer sequence and grouping equal outputs. That law is the
mechanism's only when the output is a *function* of the answers: the same answers, the same
output (the same canonical bytes). A mechanism that draws its own randomness, reads a clock or
returns a fresh object each time (`random.random()`, a NaN, a generator, `object()`) has no
such law; grouping its outputs would make every output its own event and the verdict "refuted,
P(S) = 1, Q(S) = 0" an artefact of the audit. So every run of a user's mechanism is run a second
time on the answers the first run got, and the two outputs must be the same release (equal
canonical bytes, `boundary.encoding`); an output the encoder refuses is refused. Cost: one
more run of the mechanism per answer sequence (the enumeration of a user's mechanism takes
about twice as long; `bench/replay_check.py` measures it). The package's own mechanisms are
not replayed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from betweencut.boundary.encoding import release_of
from betweencut.errors import shown
from betweencut.proofs.privacy.enumeration.transcripts import MechanismNotReplayable

__all__ = ["Recording", "Replaying", "differs", "replayed"]

WHY = "its output is not a function of its noisy answers (own randomness, a clock, hidden " \
      "state, a fresh object)"


class Recording:
    """The test handed to the first run: asks the audit's test and keeps `(query, answer)`."""

    def __init__(self, test: Callable[[Any], Any]) -> None:
        self.test = test
        self.log: list[tuple[Any, Any]] = []

    def __call__(self, query: Any) -> Any:
        answer = self.test(query)
        self.log.append((query, answer))
        return answer


class Diverged(Exception):
    """The replay asked another noisy test than the first run did."""


class Replaying:
    """The test handed to the second run: the first run's answers, in order, to the same
    queries."""

    def __init__(self, log: list[tuple[Any, Any]]) -> None:
        self.log = log
        self.asked = 0

    def __call__(self, query: Any) -> Any:
        if self.asked >= len(self.log):
            raise Diverged(f"asked noisy test {self.asked + 1} where its first run on the same "
                           f"answers asked {len(self.log)}")
        expected, answer = self.log[self.asked]
        if query != expected:
            raise Diverged(f"asked {_brief(query)} as noisy test {self.asked + 1}, where its "
                           f"first run on the same answers asked {_brief(expected)}")
        self.asked += 1
        return answer


def _brief(x: object) -> str:
    text = shown(x)
    return text if len(text) <= 40 else text[:37] + "..."


def differs(first: object, second: object) -> str | None:
    """Why two outputs of runs on the same answers are not the same release, or None: their
    canonical bytes (`boundary.encoding`) must be equal; no `==` or `hash` of the user's objects
    is called. An output of a type the encoder refuses raises its `ParameterError`."""
    a, b = release_of(first), release_of(second)
    if a != b:
        return f"two runs on the same answers returned {_brief(a)} and {_brief(b)}, not the same"
    return None


def replayed(run: Callable[[Any, Any], Any], given: Any, test: Callable[[Any], Any],
             where: str) -> Any:
    """`run(given, test)`, run again on the answers it got; its output when both runs agree.

    Raises: `MechanismNotReplayable` naming `where` (the database) when the second run asks
    other noisy tests or returns an output that is not the same (`differs`); whatever `run`
    raises passes through (the caller turns it into one line)."""
    recording = Recording(test)
    first = run(given, recording)
    replay = Replaying(recording.log)
    try:
        second = run(given, replay)
    except Diverged as exc:
        raise MechanismNotReplayable(f"on {where}, replaying its answers it {exc}: {WHY}") \
            from None
    if replay.asked != len(recording.log):
        raise MechanismNotReplayable(
            f"on {where}, replaying its answers it asked {replay.asked} noisy tests where its "
            f"first run asked {len(recording.log)}: {WHY}")
    why = differs(first, second)
    if why is not None:
        raise MechanismNotReplayable(f"on {where}, {why}: {WHY}")
    return first
