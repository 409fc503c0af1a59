"""The boundary with the user's code (issue 34): what an audit checks of a mechanism it did not
write, so that a verdict rests only on what was checked.

* `encoding`: the one canonical encoder of a released output (the release is its bytes: no
  `__eq__`, `__hash__` or `__repr__` of the user's objects decides whether two outputs are the
  same release);
* `isolation`: the user's code runs in child processes forked from a clean state, so its exit,
  signals, closed streams, hangs and state carried between calls cannot decide the verdict;
* `sandbox`: outside randomness and clock reads refused while the user's code runs;
* `purity`: strict mode, the static check of the user's source against a pure subset;
* `seams`: which seams of a class's structure a constructed object overrides, and where (read on
  the object, not its class), and whether an object is the package's own code.

May import: the core basics (`betweencut.errors`, `betweencut.noise.noisy_test`,
`betweencut.noise.noisy_queries`, `betweencut.data.tree`, `betweencut.progress`); never `proofs`,
`properties`, `api`, `cli` or `testing` (they import it).
"""
