"""Outside randomness refused while the user's code runs under an audit (issue 34).

Contract (a stub until the implementation lands: both functions below do nothing yet):

* `install()`: in a child process that runs the user's code (and the package's enumeration),
  from now on every draw of randomness or read of a clock made by the user's code (`random`,
  `secrets`, `os.urandom`, `numpy.random` legacy and Generator, `uuid.uuid4`, the `time` and
  `datetime` clocks) raises `OutsideRandomness` naming the call. The package's own calls are
  not refused. Irreversible: the child ends after the audit's work.
* `refusing()`: the same as a context manager, undone on exit, for the user's code run in the
  audit's own process (importing the user's module, building a builder).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from betweencut.errors import MechanismError

__all__ = ["OutsideRandomness", "install", "refusing"]


class OutsideRandomness(MechanismError):
    """The user's code drew randomness or read a clock outside its noisy tests."""


def install() -> None:
    """Refuse outside randomness in this (child) process from now on (stub: not yet)."""


@contextmanager
def refusing() -> Iterator[None]:
    """Refuse outside randomness while the block runs, then undo it (stub: not yet)."""
    yield
