"""The release-path replay: the user's mechanism run as deployed, in a fresh interpreter with the
release sampler, so an audit can check that its code behaves the same when not audited.

The audit enumerates the user's code in children FORKED from the audit's process
(`betweencut.boundary.isolation`): they see the audit's modules (`betweencut.proofs...` in
`sys.modules`), its call stack, the proof path's test objects. Code that looks for any of them
can behave privately only when audited. The replay runs it where none of them is:

* a FRESH interpreter (`sys.executable -c BOOT`, which sets the audit's `sys.path`, imports
  the release sampler and calls `main`; not a fork), in the audit's working directory and
  environment, which imports only the core modules the run needs (`noise.bt_sampler`,
  `boundary.encoding`) and the user's module with plain `importlib` by its name
  (its file when the name imports another one); it checks that no `betweencut.proofs` module
  is loaded before the user's module is imported (`PROOFS_LOADED`, sent to the parent, which
  refuses otherwise), and hides the package's modules it loaded itself (this one, the
  encoder...): the user's module finds loaded what `import betweencut.noise.bt_sampler`
  loads, as in deployment (`_hide`);
* for each database given, `runs` runs of the user's callable (a function `(db, test)`, or a
  builder's `run(leaves, test)`, built once from the public tree and parameters) with a real
  `ExactSampler(seed)` for the public seeds `0..runs-1` (the very class deployment uses; its
  private `_answers` slot records the answers drawn);
* one JSON line per run: the database's index, the seed, the answers drawn (`L`, `B`, `H`),
  each release's canonical bytes in hex (`boundary.encoding.release_of` of the whole output,
  or of its attribute `on`), and the noisy tests asked (each `count, a, b, lam` as integer
  numerator and denominator: nothing is parsed from text).

The parent (`start`, `Replay.runs`) reads at most `MAX_BYTES`, within the time left of the
computation's budget (`isolation.limit_now`, or `LIMIT_SECONDS` when set: the tests' short
watchdog); the child's exit before its last line, a hang, an oversized result or an exception
of the user's code is one `MechanismError` line naming the mechanism, the release path and
the database. What the replay's runs are compared with (the audit's enumeration) is the
proofs' side: `betweencut.proofs.privacy.enumeration.release_path`.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from betweencut.errors import MechanismError, one_line

__all__ = ["LIMIT_SECONDS", "MAX_BYTES", "PATH", "RUNS", "ReleasePathDiffers", "Replay",
           "ReplayRun", "ReplaySpec", "enabled", "locate", "main", "params_json", "replaying",
           "start", "tree_json"]

RUNS = 8  # runs per database, seeds 0..RUNS-1 (public constants)
MAX_BYTES = 64 << 20  # the child's whole result (hex of every run's releases)
LIMIT_SECONDS: float | None = None  # a watchdog shorter than the budget's (tests only)
PATH = "on the release path (a fresh interpreter, the release sampler)"
PROOFS_LOADED = "proofs"
# the child's first statement: the audit's sys.path (the first line of its input) before the
# package is imported, so it finds the very betweencut the audit runs, then `main`
BOOT = ("import json, sys; sys.path[:0] = [p for p in json.loads(sys.stdin.readline()) "
        "if p not in sys.path]; import betweencut.noise.bt_sampler; keep = set(sys.modules); "
        "from betweencut.boundary.release_replay import main; sys.exit(main(keep))")
_REPLAYING: ContextVar[bool] = ContextVar("betweencut_replaying", default=True)


@contextmanager
def replaying(on: bool) -> Iterator[None]:
    """Whether audits replay the release path inside the block (default: they do). Off only for
    `bench/release_replay.py`'s baseline; a verdict made with it off states the release path
    as not replayed (`betweencut.proofs.assumes.release_path_not_done`), never as checked."""
    token = _REPLAYING.set(on)
    try:
        yield
    finally:
        _REPLAYING.reset(token)


def enabled() -> bool:
    """Do audits replay the release path here (`replaying`)?"""
    return _REPLAYING.get()


class ReleasePathDiffers(MechanismError):
    """A run on the release path gave what the audit's enumeration did not (raised by the
    comparison, `betweencut.proofs.privacy.enumeration.release_path`)."""


@dataclass(frozen=True)
class ReplaySpec:
    """What the child replays: the user's callable by module and qualified name (`file`: the
    module's file, loaded when the name imports another one), a builder's public tree
    (`tree_json`) and parameters (`params_json`), the releases `ons`, the databases and the
    runs per database."""

    who: str
    module: str
    file: str | None
    qualname: str
    builder: bool
    ons: tuple[str, ...]
    databases: tuple[Any, ...]
    tree: dict[str, Any] | None = None
    params: dict[str, Any] | None = None
    runs: int = RUNS
    path: tuple[str, ...] = field(default_factory=lambda: tuple(
        p for p in sys.path if isinstance(p, str)))

    def as_json(self) -> dict[str, Any]:
        return {"who": self.who, "module": self.module, "file": self.file,
                "qualname": self.qualname, "builder": self.builder, "ons": list(self.ons),
                "databases": [[list(node) for node in db] for db in self.databases],
                "tree": self.tree, "params": self.params,
                "runs": self.runs, "path": list(self.path)}


@dataclass(frozen=True)
class ReplayRun:
    """One run on the release path: the database's index, the seed, the answers drawn (each
    `L`, `B` or `H`), each release's canonical bytes (in the order of `ons`), and the noisy
    tests asked, in order (`(count, a, b, lam)` of each, exact)."""

    db: int
    seed: int
    answers: str
    outputs: tuple[bytes, ...]
    queries: tuple[tuple[Fraction, Fraction, Fraction, Fraction], ...] = ()


def _exact(pair: object) -> Fraction:
    """A number the child sent as `[numerator, denominator]` (integers, never text)."""
    if (not isinstance(pair, list) or len(pair) != 2 or not all(type(v) is int for v in pair)
            or pair[1] <= 0):
        raise ValueError("an exact number as [numerator, denominator]")
    return Fraction(pair[0], pair[1])


def locate(target: object) -> tuple[str, str | None, str] | None:
    """`(module, file, qualname)` naming `target` so a fresh interpreter finds the very same
    object by import, or None: a callable defined in `__main__`, inside a function or in a
    module without a file (built in memory), an instance or a partial, or a name that does not
    lead back to it."""
    module = getattr(target, "__module__", None)
    qualname = getattr(target, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str):
        return None
    if module == "__main__" or "<" in qualname:
        return None
    found: Any = sys.modules.get(module)
    file = getattr(found, "__file__", None)
    if found is None or not isinstance(file, str):  # a module built in memory: no import
        return None
    for part in qualname.split("."):
        found = getattr(found, part, None)
    if found is not target:
        return None
    return module, file, qualname


def tree_json(tree: Any) -> dict[str, Any]:
    """A public tree as data: its height, description, end-of-record flag and the names of the
    children of every node (by the names of its path); rebuilt by the child as a `PublicTree`
    answering the same."""
    children: list[list[list[str]]] = []

    def walk(node: tuple[int, ...], names: tuple[str, ...]) -> None:
        kids = list(tree.names_of_children(node))
        children.append([list(names), kids])
        for i, name in enumerate(kids):
            walk((*node, i), (*names, name))

    walk((), ())
    return {"height": tree.height, "description": tree.description,
            "end_of_record": bool(tree.end_of_record), "children": children}


def params_json(params: Any) -> dict[str, Any] | None:
    """A builder's public parameters as data: their class (located as the user's callable is,
    `locate`) and the exact texts of tau, lambda and R its `of` reads back; None when the class
    cannot be located."""
    found = locate(type(params))
    if found is None:
        return None
    return {"module": found[0], "qualname": found[2],
            "args": [str(params.tau), str(params.lam), params.R.exact_str()]}


def _tree(data: dict[str, Any]) -> Any:
    from betweencut.data.tree import PublicTree

    table = {tuple(names): tuple(kids) for names, kids in data["children"]}
    return PublicTree(int(data["height"]), _Names(table),
                      end_of_record=bool(data["end_of_record"]),
                      description=str(data["description"]))


@dataclass(frozen=True)
class _Names:
    table: dict[tuple[str, ...], tuple[str, ...]]

    def __call__(self, path: tuple[str, ...]) -> tuple[str, ...]:
        return self.table.get(tuple(path), ())


# -- the parent ---------------------------------------------------------------------------------
class Replay:
    """A running replay child (`start`); `runs()` waits for its result."""

    def __init__(self, spec: ReplaySpec, proc: subprocess.Popen[bytes]) -> None:
        self.spec = spec
        self.proc = proc
        self.data = bytearray()

    def kill(self) -> None:
        """End the child (if running) and reap it."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()

    def _where(self, index: int | None) -> str:
        if index is None or not 0 <= index < len(self.spec.databases):
            return PATH
        from betweencut.data.notation import database_text

        return f"{PATH}, on D = {database_text(self.spec.databases[index])}"

    def runs(self) -> list[ReplayRun]:
        """Every run's record, in order; raises `MechanismError` (one line) when the child
        ended early, hung, sent more than `MAX_BYTES`, loaded `betweencut.proofs` before the
        user's module, or the user's code raised."""
        from betweencut.boundary.isolation import limit_now, out_of_time

        who = self.spec.who
        span, what = limit_now() if LIMIT_SECONDS is None else (
            LIMIT_SECONDS, f"{LIMIT_SECONDS:g} s")
        deadline = time.monotonic() + span
        stream = self.proc.stdout
        if stream is None:
            raise MechanismError(f"the replay of {who} has no result stream")
        fd = stream.fileno()
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise out_of_time(who, self._where(self._at()), what,
                                      watchdog=LIMIT_SECONDS is not None)
                ready, _, _ = select.select([fd], [], [], left)
                if not ready:
                    continue
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                self.data += chunk
                if len(self.data) > MAX_BYTES:
                    raise MechanismError(
                        f"the mechanism {who} sent more than {MAX_BYTES} bytes of releases "
                        f"{self._where(self._at())}")
            try:
                status = self.proc.wait(max(deadline - time.monotonic(), 0.05))
            except subprocess.TimeoutExpired:  # its stream closed, the process lingers
                self.kill()
                status = self.proc.returncode
        except BaseException:
            self.kill()
            raise
        self.kill()
        return self._decode(status)

    def _lines(self) -> list[dict[str, Any]]:
        out = []
        for raw in bytes(self.data).split(b"\n"):
            if not raw.strip():
                continue
            try:
                line = json.loads(raw)
            except ValueError:
                break
            if not isinstance(line, dict):
                break
            out.append(line)
        return out

    def _at(self) -> int | None:
        at = None
        for line in self._lines():
            if isinstance(line.get("at"), int):
                at = line["at"]
        return at

    def _decode(self, status: int) -> list[ReplayRun]:
        who = self.spec.who
        runs: list[ReplayRun] = []
        at: int | None = None
        for line in self._lines():
            if line.get(PROOFS_LOADED):
                raise MechanismError(
                    f"the release-path replay of {who} loaded betweencut.proofs modules "
                    f"before your module ({', '.join(map(str, line[PROOFS_LOADED]))}): "
                    "it is not the release path")
            if "error" in line:
                raise MechanismError(one_line(
                    f"the mechanism {who} {line['error']} {self._where(line.get('at', at))}"))
            if isinstance(line.get("at"), int):
                at = line["at"]
            if "answers" in line:
                try:
                    queries = tuple((_exact(c), _exact(a), _exact(b), _exact(lam))
                                    for c, a, b, lam in line["queries"])
                    runs.append(ReplayRun(int(line["db"]), int(line["seed"]),
                                          str(line["answers"]),
                                          tuple(bytes.fromhex(o) for o in line["outputs"]),
                                          queries))
                except (KeyError, TypeError, ValueError):  # `_exact`'s ValueError too
                    raise MechanismError(f"the replay of {who} sent a malformed line "
                                         f"{self._where(at)}") from None
            if line.get("done") is True:
                return runs
        ended = f"exit status {status}"
        if status < 0:
            try:
                ended = f"killed by {signal.Signals(-status).name}"
            except ValueError:
                ended = f"killed by signal {-status}"
        raise MechanismError(f"the mechanism {who} ended its process ({ended}) "
                             f"{self._where(at)}")


def start(spec: ReplaySpec) -> Replay:
    """The replay child, started (module doc): the spec goes through its standard input, its
    result comes back on its standard output; its standard error is discarded (the user's
    prints go nowhere: fds 1 and 2 point at /dev/null while the user's code runs)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", BOOT],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        cwd=os.getcwd(), env=dict(os.environ), close_fds=True)
    replay = Replay(spec, proc)
    stdin = proc.stdin
    if stdin is None:
        raise MechanismError(f"the replay of {spec.who} has no input stream")
    try:
        stdin.write(json.dumps(list(spec.path)).encode() + b"\n")
        stdin.write(json.dumps(spec.as_json()).encode())
        stdin.close()
    except OSError:  # the child ended at once: its status says why (`Replay.runs`)
        pass
    return replay


# -- the child ----------------------------------------------------------------------------------
def _load(spec: dict[str, Any]) -> Any:
    """The user's module, imported by name with the audit's `sys.path`; by its file when the
    name imports a module from elsewhere (a module loaded from a path under its stem)."""
    name, file = str(spec["module"]), spec.get("file")
    try:
        module = importlib.import_module(name)
    except ImportError:
        if not file:
            raise
        module = None
    if module is not None and (not file or os.path.realpath(
            str(getattr(module, "__file__", "") or "")) == os.path.realpath(str(file))):
        return module
    loader = importlib.util.spec_from_file_location(name, str(file))
    if loader is None or loader.loader is None:
        raise ImportError(f"cannot load {file}")
    module = importlib.util.module_from_spec(loader)
    sys.modules[name] = module
    loader.loader.exec_module(module)
    return module


def _named(module: Any, qualname: str) -> Any:
    found = module
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def _hide(keep: set[str]) -> None:
    """The package's modules the replay loaded beyond `keep` (what deployment's import of the
    release sampler loads), removed from `sys.modules` and from their package's attributes
    before the user's module is imported: it sees the modules deployment would (the replay
    keeps its references; a module the user's code imports is imported afresh)."""
    for name in sorted(m for m in sys.modules
                       if (m == "betweencut" or m.startswith("betweencut.")) and m not in keep):
        sys.modules.pop(name, None)
        parent, _, child = name.rpartition(".")
        package = sys.modules.get(parent)
        if package is not None and child in vars(package):
            delattr(package, child)


def _replay(spec: dict[str, Any], write: Any, keep: set[str] | None = None) -> None:
    from betweencut.boundary.encoding import release_of
    from betweencut.boundary.isolation import raised_line
    from betweencut.noise.bt_sampler import ExactSampler

    for entry in reversed(spec["path"]):
        if entry in sys.path:
            sys.path.remove(entry)
        sys.path.insert(0, entry)
    write({PROOFS_LOADED: sorted(m for m in sys.modules if m == "betweencut.proofs"
                                 or m.startswith("betweencut.proofs."))})
    if keep is not None:
        _hide(keep)
    ons: Sequence[str] = spec["ons"]
    try:
        target = _named(_load(spec), str(spec["qualname"]))
        if spec["builder"]:  # the parameters' class located as the user's callable is
            made = spec["params"]
            params = _named(importlib.import_module(made["module"]), made["qualname"]).of(
                *made["args"])
            run = target(_tree(spec["tree"]), params).run
        else:
            run = target
    except BaseException as exc:
        write({"error": f"did not load or build: {raised_line(exc)}"})
        return
    for index, db in enumerate(spec["databases"]):
        database = tuple(tuple(node) for node in db)
        write({"at": index})
        for seed in range(int(spec["runs"])):
            sampler = ExactSampler(seed)
            sampler._answers = []
            try:
                output = run(database, sampler)
                outputs = [release_of(output if on == "output" else getattr(output, on)).data
                           for on in ons]
            except BaseException as exc:
                write({"at": index, "error": f"raised {raised_line(exc)}"})
                return
            asked = sampler._answers
            write({"db": index, "seed": seed, "answers": "".join(s.value for _, s in asked),
                   "outputs": [o.hex() for o in outputs],
                   "queries": [[[v.numerator, v.denominator] for v in (q.count, q.a, q.b, q.lam)]
                               for q, _ in asked]})
    write({"done": True})


def main(keep: set[str] | None = None) -> int:
    """The child: the spec from standard input (after the path line `BOOT` read), one JSON line
    per record to the standard output it was started with; the user's code sees /dev/null as
    its streams, and of the package only the modules in `keep` (those deployment's import of
    the release sampler loads, `BOOT`) and what it imports itself (`_hide`)."""
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    if __name__ == "__main__":  # run as `python -m`: the path line `BOOT` reads comes first
        sys.stdin.readline()
    spec = json.loads(sys.stdin.read())
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    sys.stdin = open(os.devnull)  # noqa: SIM115 - the child's streams live until it ends
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115

    def write(line: dict[str, Any]) -> None:
        out.write(json.dumps(line, separators=(",", ":")) + "\n")
        out.flush()

    _replay(spec, write, keep)
    out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
