"""The modules moved when core/ was grouped by role keep their old names (`betweencut.MOVED`):
a user's mechanism importing `betweencut.noisy_test` gets the very module of
`betweencut.noise.noisy_test`."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import betweencut


@pytest.mark.parametrize(("old", "new"), sorted(betweencut.MOVED.items()))
def test_an_old_module_name_is_the_new_module(old: str, new: str) -> None:
    moved = importlib.import_module(f"betweencut.{old}")
    assert moved is importlib.import_module(f"betweencut.{new}")
    assert moved.__name__ == f"betweencut.{new}"


def test_old_names_in_a_fresh_process_and_an_unknown_name_still_fails() -> None:
    script = ("from betweencut.noisy_test import BTQuery\n"
              "from betweencut.betweencut import BetweenCut\n"
              "import betweencut.noise.noisy_test as n, betweencut.mechanism.betweencut as b\n"
              "assert BTQuery is n.BTQuery and BetweenCut is b.BetweenCut\n"
              "import betweencut\n"
              "assert betweencut.noisy_test is n\n")
    subprocess.run([sys.executable, "-c", script], check=True)
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("betweencut.no_such_module")
