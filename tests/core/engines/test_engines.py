"""Issue 14: counting engines. The candidates (count > floor(a - R)) decide the Heavy set.

Every engine, on the same records and the same seed, returns exactly the Heavy set of the
in-memory sparse implementation (Appendix D) and asks the same noisy queries in the same order,
on trees over leaf indices and over alphabets with records shorter than a leaf path. The SQL
encoding answers to the text reader's parser; bad records name their file and row.
"""

from __future__ import annotations

import builtins
import csv
import json
import random
import subprocess
import sys
from fractions import Fraction as F
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from betweencut.data.records import parse_records
from betweencut.data.tree import Node, PublicTree, kary_tree, prefix_tree
from betweencut.engines import duckdb as duck
from betweencut.engines.candidates import (
    Candidates,
    CandidateSink,
    candidate_bound,
    classify_candidates,
)
from betweencut.engines.common import (
    WHITESPACE,
    EngineError,
    Source,
    SourceRecordError,
    TreeCodec,
    candidate_cut,
)
from betweencut.engines.memory import read_leaves
from betweencut.engines.select import choose_engine
from betweencut.errors import MissingExtra, ParameterError, RecordError
from betweencut.mechanism.betweencut import path_counts
from betweencut.mechanism.params import Params
from betweencut.mechanism.sparse import sparse_between_cut
from betweencut.noise.bt_sampler import ExactSampler
from betweencut.noise.noisy_test import RecordingTest
from betweencut.numbers.exact import LogReal

duckdb = pytest.importorskip("duckdb")
SEEDS = range(6)


# -- data -------------------------------------------------------------------------------------

def kary_records(rng: random.Random, k: int, h: int, n: int) -> list[str]:
    hot = [[rng.randrange(k) for _ in range(h - 1)] for _ in range(3)]
    out = []
    for _ in range(n):
        path = rng.choice(hot) if rng.random() < 0.7 else [rng.randrange(k) for _ in range(h - 1)]
        out.append("/".join(map(str, path)))
    return out


def prefix_records(rng: random.Random, symbols: str, h: int, n: int) -> list[str]:
    out = []
    for _ in range(n):
        length = rng.randrange(1, h)  # 1 .. h-1 symbols: shorter records end in ⊣
        out.append("/".join(rng.choice(symbols[:2]) if rng.random() < 0.6 else rng.choice(symbols)
                            for _ in range(length)))
    return out


def write_csv(path: Path, records: list[str | None], column: str = "rec") -> Path:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", column])
        for i, rec in enumerate(records):
            writer.writerow([i, "" if rec is None else rec])
    return path


def write_parquet(path: Path, records: list[Any], column: str = "rec") -> Path:
    con = duckdb.connect()
    kind = "BIGINT" if records and isinstance(next((r for r in records if r is not None), ""),
                                              int) else "VARCHAR"
    con.execute(f"CREATE TABLE t (id BIGINT, {column} {kind})")
    if records:
        con.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(records)))
    con.execute(f"COPY (SELECT * FROM t ORDER BY id) TO '{path}' (FORMAT parquet)")
    return path


def reference(tree: PublicTree, records: list[str], params: Params, seed: int
              ) -> tuple[frozenset[Node], list[Any]]:
    test = RecordingTest(ExactSampler(seed))
    heavy = sparse_between_cut(tree, parse_records(records, tree), params, test).heavy
    return heavy, [q for q, _ in test.log]


@pytest.fixture(params=["chain", "split"])
def plan(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both DuckDB plans: one scan and a per-depth chain (small trees), or two scans split at a
    shallow depth (forced here by allowing at most 2 groups in the first scan)."""
    if request.param == "split":
        monkeypatch.setattr(duck, "SPLIT_GROUPS", 2)
    return str(request.param)


def files(tmp_path: Path, seed: int, records: list[str], plan: str) -> list[Path]:
    """CSV and Parquet for the one-scan plan; Parquet alone for the split plan (the reader is
    the same for both plans, so the split plan needs only one format)."""
    out = [write_parquet(tmp_path / f"{seed}.parquet", list(records))]
    if plan == "chain":
        out.append(write_csv(tmp_path / f"{seed}.csv", list(records)))
    return out


def engine_run(source: Source, tree: PublicTree, params: Params, seed: int
               ) -> tuple[frozenset[Node], list[Any], dict[str, object]]:
    test = RecordingTest(ExactSampler(seed))
    result = duck.classify(source, TreeCodec.of(tree), params, test, threads=1)
    return result.heavy, [q for q, _ in test.log], result.diagnostics


# -- the equivalence: candidates decide the Heavy set ---------------------------------------------

@pytest.mark.parametrize(("k", "h"), [(2, 4), (3, 4), (2, 7), (1, 5), (2, 1)])
def test_duckdb_equals_sparse_on_kary_trees_csv_and_parquet(
    tmp_path: Path, k: int, h: int, plan: str
) -> None:
    tree = kary_tree(k, h)
    noisy = 0
    for seed in SEEDS:
        rng = random.Random(seed)
        params = Params.of(rng.choice([3, 4, 6]), F(1, 2), 1)  # E = 3: counts near tau draw noise
        records = kary_records(rng, k, h, rng.randrange(1, 40)) if h > 1 else []
        want, queries = reference(tree, records, params, seed)
        noisy += len(queries)
        for path in files(tmp_path, seed, records, plan):
            heavy, asked, diag = engine_run(Source.of(str(path), "rec"), tree, params, seed)
            assert heavy == want and asked == queries, (path, seed)
            assert diag["records"] == len(records)
    assert noisy > 0 or h == 1 or k == 1  # a unary tree rarely lands near tau in 6 seeds


@pytest.mark.parametrize(("alphabet", "h"), [("ab", 4), ("abc", 4), ("xyz", 3), ("a", 5)])
def test_duckdb_equals_sparse_on_prefix_trees_with_end_of_record(
    tmp_path: Path, alphabet: str, h: int, plan: str
) -> None:
    tree = prefix_tree(list(alphabet), h)
    noisy = 0
    for seed in SEEDS:
        rng = random.Random(seed)
        params = Params.of(rng.choice([4, 5]), F(1, 2), LogReal(F(1), F(1, 4), F(3)))
        records = prefix_records(rng, alphabet, h, rng.randrange(1, 50))
        assert any(len(r.split("/")) < h - 1 for r in records) or h == 2
        want, queries = reference(tree, records, params, seed)
        noisy += len(queries)
        for path in files(tmp_path, seed, records, plan):
            heavy, asked, _ = engine_run(Source.of(str(path), "rec"), tree, params, seed)
            assert heavy == want and asked == queries, (path, seed)
    assert noisy > 0


def test_integer_column_names_leaves_in_public_order(tmp_path: Path, plan: str) -> None:
    tree = kary_tree(2, 9)
    rng = random.Random(4)
    numbers = [rng.choice([3, 200, 201]) if rng.random() < 0.7 else rng.randrange(256)
               for _ in range(300)]
    codec = TreeCodec.of(tree)
    records = ["/".join(map(str, codec.leaf_of_number(v, "x", 1))) for v in numbers]
    assert records[0] == "/".join(format(numbers[0], "08b"))
    path = write_parquet(tmp_path / "n.parquet", numbers, column="leaf")
    for seed in SEEDS:
        params = Params.of(40, F(1, 2), 1)
        want, queries = reference(tree, records, params, seed)
        heavy, asked, _ = engine_run(Source.of(str(path), "leaf"), tree, params, seed)
        assert heavy == want and asked == queries


def test_candidates_are_the_nodes_above_the_cut(tmp_path: Path) -> None:
    """The engine returns exactly {u : c_u > floor(a - R)}, each with its exact count."""
    tree = prefix_tree(list("abc"), 5)
    rng = random.Random(9)
    records = prefix_records(rng, "abc", 5, 400)
    path = write_parquet(tmp_path / "p.parquet", list(records))
    params = Params.of(20, F(1, 2), LogReal(F(1), F(1, 4), F(3)))
    cut = candidate_cut(params)
    assert cut == 16  # floor(20 - 2 - 1 - ln(3)/4)
    codec = TreeCodec.of(tree)
    con = duck.connect(1)
    want = {u: n for u, n in path_counts(parse_records(records, tree)).items() if n > cut}
    assert {len(u) for u in want} >= {0, 1, 2, 3}  # candidates below every split depth
    for groups in (1 << 16, 4, 16, 64):  # one scan; two scans split at depth 1, 2 and 3
        duck.SPLIT_GROUPS = groups
        try:
            query = duck.prefix_sql(codec, duck.code_sql(codec, "string"),
                                    duck.columns_sql("string", "rec"),
                                    duck.reader_sql(Source.of(str(path), "rec")), cut)
        finally:
            duck.SPLIT_GROUPS = 1 << 16
        rows = con.execute(query, {"files": [str(path)], "names": list(codec.names),
                                   "ws": WHITESPACE}).fetchall()
        got = {codec.encoding.decode(d, c): n for _, d, c, n in rows if d >= 0}
        assert got == want, groups
        ranks = [r for r, d, _, _ in rows if d >= 0]
        assert ranks == sorted(ranks)  # streamed in DepO order


def test_a_wrong_cut_is_caught() -> None:
    """A broken engine that drops the nodes with count exactly cut + 1 (they can answer B or H)
    changes the noisy queries: the equivalence test would reject it."""
    tree = kary_tree(2, 5)
    params = Params.of(4, F(1, 2), 1)
    cut = candidate_cut(params)
    codec = TreeCodec.of(tree)
    caught = 0
    for seed in SEEDS:
        rng = random.Random(seed)
        records = kary_records(rng, 2, 5, 30)
        want, queries = reference(tree, records, params, seed)
        counts = path_counts(parse_records(records, tree))
        for lowest in (cut + 1, cut + 2):  # right, then wrong
            nodes = sorted((len(u), codec.encoding.encode([u + (0,) * (4 - len(u))])[0]
                            // 2 ** (4 - len(u)), n) for u, n in counts.items() if n >= lowest)
            table = np.array(nodes, np.int64).reshape(-1, 3)
            test = RecordingTest(ExactSampler(seed))
            run = classify_candidates(Candidates.from_rows(5, table[:, 0], table[:, 1],
                                                           table[:, 2]), codec, params, test)
            same = run.heavy == want and [q for q, _ in test.log] == queries
            if lowest == cut + 1:
                assert same
            else:
                caught += not same
    assert caught > 0


def test_candidates_not_closed_under_parents_are_refused() -> None:
    codec = TreeCodec.of(kary_tree(2, 3))
    cands = Candidates([np.array([0]), np.array([1]), np.array([0])],
                       [np.array([9]), np.array([9]), np.array([9])])  # (0, 0)'s parent is (0,)
    with pytest.raises(EngineError, match="depth 2"):
        classify_candidates(cands, codec, Params.of(4, F(1, 2), 1))


def straddling_neighbours(tree: PublicTree, params: Params, seed: int
                          ) -> tuple[list[str], list[str], int]:
    """Two neighbouring inputs (the second adds one record) whose candidate counts straddle a
    budget: the first has exactly `budget` candidates, the second more."""
    cut = candidate_cut(params)
    rng = random.Random(seed)
    k, h = len(tree.uniform_child_names or ()), tree.height
    records = kary_records(rng, k, h, 60)

    def size(recs: list[str]) -> int:
        return sum(n > cut for n in path_counts(parse_records(recs, tree)).values())

    budget = size(records)
    for extra in ("/".join(format(i, f"0{h - 1}b")) for i in range(2 ** (h - 1))):
        if size([*records, extra]) > budget:
            return records, [*records, extra], budget
    raise AssertionError("no neighbour crosses the budget")  # pragma: no cover


def test_neighbours_straddling_the_budget_both_release(tmp_path: Path) -> None:
    """Issue 25: whether a run releases depends on public inputs only. Two neighbours whose
    candidate counts straddle `max_candidates` both release; the one past it keeps its
    candidates on disk, with the same Heavy set and noisy queries as the sparse reference."""
    tree = kary_tree(2, 7)
    params = Params.of(4, F(1, 2), 1)
    spilled = []
    for seed in range(3):
        small, large, budget = straddling_neighbours(tree, params, seed)
        for i, records in enumerate((small, large)):
            want, queries = reference(tree, records, params, seed)
            path = write_parquet(tmp_path / f"{seed}_{i}.parquet", list(records))
            test = RecordingTest(ExactSampler(seed))
            result = duck.classify(Source.of(str(path), "rec"), TreeCodec.of(tree), params,
                                   test, max_candidates=budget)
            assert result.heavy == want and [q for q, _ in test.log] == queries
            assert result.diagnostics["candidates_on_disk"] == i  # the neighbour past it: disk
            spilled.append(result.diagnostics["candidates"])
    assert all(isinstance(v, int) for v in spilled)


def test_candidate_set_bound(tmp_path: Path) -> None:
    """At most sum_d min(r^d, n / (cut + 1)) <= n * h / (cut + 1) candidates (public bound)."""
    tree = kary_tree(2, 8)
    rng = random.Random(2)
    records = kary_records(rng, 2, 8, 500)
    path = write_parquet(tmp_path / "k.parquet", list(records))
    params = Params.of(4, F(1, 2), 1)
    cut = candidate_cut(params)
    result = duck.classify(Source.of(str(path), "rec"), TreeCodec.of(tree), params, ExactSampler(1))
    size = int(str(result.diagnostics["candidates"]))
    bound = candidate_bound(TreeCodec.of(tree), cut, 500)
    assert 0 < size <= bound <= 500 * 8 // (cut + 1)
    assert candidate_bound(TreeCodec.of(tree), cut, 10**9) == 2**8 - 1  # then the whole tree


def test_candidate_sink_keeps_order_and_spills_the_same_arrays() -> None:
    """The sink refuses chunks out of code order (an engine bug, named by its depth only), and
    spilled or not it gives the exact stage the same candidates and levels."""
    codec = TreeCodec.of(kary_tree(2, 4))
    params = Params.of(4, F(1, 2), 1)
    with CandidateSink(4, 10) as sink, pytest.raises(EngineError, match="depth 2 are not in"):
        sink.add(2, np.array([3, 1]), np.array([9, 9]))
    with CandidateSink(4, 10) as sink:
        sink.add(1, np.array([0]), np.array([9]))
        with pytest.raises(EngineError, match="depth 1 are not in") as info:
            sink.add(1, np.array([0]), np.array([9]))
        assert not any(ch.isdigit() for ch in str(info.value).replace("depth 1", ""))
    rows = [(0, 0, 30), (1, 0, 20), (1, 1, 10), (2, 0, 12), (2, 1, 8), (2, 3, 10), (3, 1, 8),
            (3, 6, 9), (3, 7, 5)]
    runs = []
    for budget in (100, 0):
        with CandidateSink(4, budget) as sink:
            for d, c, n in rows:
                sink.add(d, np.array([c]), np.array([n]))
            assert sink.spilled == (budget == 0)
            for seed in range(4):
                test = RecordingTest(ExactSampler(seed))
                runs.append((sink.classify(codec, params, test).heavy, test.log))
    assert runs[:4] == runs[4:]
    with pytest.raises(ParameterError, match="max_candidates"):
        CandidateSink(4, -1)


def test_engines_need_tau_at_least_E() -> None:
    with pytest.raises(ParameterError, match="memory"):
        candidate_cut(Params.of(2, F(1, 2), 1))  # E = 3 > 2


# -- the SQL encoding answers to the parser ----------------------------------------------------

TRICKY = ["a/b", " a / b ", "/a/b/", "\ta/b\n", "a", "a/b/c", "a\u3000/b", "a//b", "", " ",
          "/", "d/a", "a/b/c/a", "a/⊣", "⊣", "a/ /b", "\u00a0b\u00a0", "b/c/"]


@pytest.mark.parametrize("tree", [prefix_tree(list("abc"), 4), kary_tree(3, 4),
                                  prefix_tree([" a", "b", "c\u3000", "d e"], 4)],
                         ids=["prefix", "kary", "spaced-names"])
def test_sql_encoding_equals_the_parser(tree: PublicTree) -> None:
    """Every record the SQL encodes gets the parser's leaf code; every record it refuses the
    parser refuses too, or it writes ⊣ out (refused by name). Components are looked up as they
    are first, trimmed only if that fails: a name with whitespace at its edges (which the parser
    never matches, it strips every component) must not be matched untrimmed either."""
    codec = TreeCodec.of(tree)
    records = [*TRICKY, "0/1/2", " 2/2/2", "0/1", "0/1/2/0", "3/0/0", "\t0/1/2\r\n", "/0/0/0/",
               "1 / 1 / 1", "\u20020/0/1", " a/b", "b/ a", "b/c\u3000", "c\u3000/b", "d e/b",
               " d e /b", "b/b/b", "\u2028b/b\u2029", "\x1cb\x1f", "/ /b", "b/ /", "b/\x85"]
    con = duck.connect(1)
    got = con.execute(
        f"SELECT {duck.code_sql(codec, 'string')} FROM (SELECT {duck.columns_sql('string', 'r')} "
        "FROM (SELECT unnest($recs) AS r))",
        {"recs": records, "names": list(codec.names), "ws": WHITESPACE},
    ).fetchall()
    accepted = 0
    for rec, (code,) in zip(records, got, strict=True):
        try:
            leaf = parse_records([rec], tree)[0]
        except RecordError:
            assert code is None, rec
            continue
        if code is None:
            assert "⊣" in rec, rec
            continue
        accepted += 1
        assert code == int(codec.encoding.encode([leaf])[0]), rec
    assert accepted >= 5


# -- bad input ------------------------------------------------------------------------------------

def test_malformed_record_names_file_and_row(tmp_path: Path) -> None:
    tree = prefix_tree(list("ab"), 4)
    params = Params.of(5, F(1, 2), 1)
    good = write_csv(tmp_path / "a.csv", ["a/b", "b"])
    bad = write_csv(tmp_path / "b.csv", ["a", "a/b", "a/x/b"])
    source = Source.of(str(tmp_path / "*.csv"), "rec", pattern=True)
    assert source.files == (str(good), str(bad))
    for run in (lambda: duck.classify(source, TreeCodec.of(tree), params),
                lambda: read_leaves(source, tree)):
        with pytest.raises(SourceRecordError, match=r"b\.csv, row 3: component 'x'") as info:
            run()
        assert info.value.file == str(bad) and info.value.row == 3
    pq = write_parquet(tmp_path / "c.parquet", ["a", "a/b/a/b", "b"])
    with pytest.raises(SourceRecordError, match=r"c\.parquet, row 2: .*deeper"):
        duck.classify(Source.of(str(pq), "rec"), TreeCodec.of(tree), params)
    ended = write_parquet(tmp_path / "d.parquet", ["a/⊣"])
    with pytest.raises(SourceRecordError, match=r"row 1: .*⊣"):
        duck.classify(Source.of(str(ended), "rec"), TreeCodec.of(tree), params)
    numbers = write_parquet(tmp_path / "n.parquet", [1, 2, 8], column="leaf")
    with pytest.raises(SourceRecordError, match=r"row 3: leaf number 8 is not in 0\.\.7"):
        duck.classify(Source.of(str(numbers), "leaf"), TreeCodec.of(kary_tree(2, 4)), params)


def test_null_records_are_refused_unless_skipped(tmp_path: Path) -> None:
    tree = kary_tree(2, 3)
    params = Params.of(4, F(1, 2), 1)
    records: list[str | None] = ["0/1", None, "1/1", "0/1"]
    for path in (write_csv(tmp_path / "n.csv", records), write_parquet(tmp_path / "n.parquet",
                                                                       records)):
        with pytest.raises(SourceRecordError, match="row 2: null record"):
            duck.classify(Source.of(str(path), "rec"), TreeCodec.of(tree), params)
        skip = Source.of(str(path), "rec", skip_null=True)
        result = duck.classify(skip, TreeCodec.of(tree), params, ExactSampler(0))
        assert result.diagnostics["null_records_skipped"] == 1
        assert result.diagnostics["records"] == 3
    csv_only = Source.of(str(tmp_path / "n.csv"), "rec")
    with pytest.raises(SourceRecordError, match="row 2: null record"):
        read_leaves(csv_only, tree)
    assert read_leaves(Source.of(str(tmp_path / "n.csv"), "rec", skip_null=True), tree)[1] == {
        "null_records_skipped": 1}


def test_inputs_columns_and_engines_are_validated(tmp_path: Path) -> None:
    path = write_parquet(tmp_path / "x.parquet", ["0/1"])
    codec = TreeCodec.of(kary_tree(2, 3))
    params = Params.of(4, F(1, 2), 1)
    with pytest.raises(ParameterError, match="column=nope"):
        duck.classify(Source.of(str(path), "nope"), codec, params)
    with pytest.raises(ParameterError, match="--column names"):
        duck.classify(Source.of(str(path)), codec, params)
    with pytest.raises(ParameterError, match="BIGINT"):
        duck.classify(Source.of(str(path), "id"), TreeCodec.of(prefix_tree(["a"], 3)), params)
    with pytest.raises(ParameterError, match="no such file"):
        Source.of(str(tmp_path / "missing.csv"))
    with pytest.raises(ParameterError, match="matches none"):
        Source.of(str(tmp_path / "*.json"), pattern=True)
    write_csv(tmp_path / "y.csv", ["0/1"])
    with pytest.raises(ParameterError, match="one format"):
        Source.of(str(tmp_path))
    assert choose_engine(None, Source.of(str(path))) == "duckdb"
    assert choose_engine(None, None) == "memory"
    with pytest.raises(ParameterError, match="Parquet"):
        choose_engine("memory", Source.of(str(path)))
    with pytest.raises(ParameterError, match="only with --engine spark"):
        choose_engine("duckdb", Source.of(str(path)), "spark://h:7077")


def test_missing_engine_names_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = builtins.__import__

    def no_duckdb(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "duckdb":
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_duckdb)
    monkeypatch.delitem(sys.modules, "duckdb")
    with pytest.raises(MissingExtra, match=r"betweencut\[duckdb\]") as raised:
        duck.connect()
    assert raised.value.extra == "duckdb"


# -- the command line -----------------------------------------------------------------------------

def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "betweencut", "classify", *args],
                          capture_output=True, text=True, check=False)


def test_cli_duckdb_equals_memory_and_exits_2_on_bad_input(tmp_path: Path) -> None:
    rng = random.Random(5)
    records = prefix_records(rng, "abc", 5, 3000)
    path = write_csv(tmp_path / "r.csv", list(records))
    common = ["--column", "rec", "--alphabet", "a,b,c", "--height", "5", "--tau", "150",
              "--epsilon", "1", "--delta", "0.05", "--seed", "7", "--json"]
    runs = {e: _cli(str(path), "--engine", e, *common) for e in ("memory", "duckdb")}
    assert all(r.returncode == 0 for r in runs.values()), runs
    heavy = {e: json.loads(r.stdout)["heavy"] for e, r in runs.items()}
    assert heavy["memory"] == heavy["duckdb"] and heavy["memory"]
    bad = write_csv(tmp_path / "bad.csv", ["a", "a/q"])
    done = _cli(str(bad), *common)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "bad.csv, row 2" in done.stderr
    low = _cli(str(path), *common[:7], "1", *common[8:])
    assert low.returncode == 2 and "tau" in low.stderr and "Traceback" not in low.stderr
    helped = _cli("--help")
    assert "--engine" in helped.stdout and "--column" in helped.stdout
    for budget in ("0", "1", "100000"):  # on disk, on disk, in memory: the same release
        run = _cli(str(path), "--engine", "duckdb", *common, "--max-candidates", budget)
        assert run.returncode == 0 and json.loads(run.stdout)["heavy"] == heavy["duckdb"]
    below = _cli(str(path), "--engine", "duckdb", *common, "--max-candidates", "-1")
    assert below.returncode == 2 and "max-candidates" in below.stderr


def test_cli_engine_progress_shows_stages_and_depths_only(tmp_path: Path) -> None:
    """Issue 25: `--progress` reports an engine run's stages and depths (public facts), the
    same lines for any records; the elapsed time only with `--diagnostics`."""
    common = ["--column", "rec", "--height", "4", "--tau", "40", "--epsilon", "1", "--delta",
              "0.05", "--engine", "duckdb", "--seed", "1", "--progress"]
    shown = []
    for i, records in enumerate((["0/1/1"] * 30, kary_records(random.Random(3), 2, 4, 50))):
        path = write_csv(tmp_path / f"{i}.csv", list(records))
        run = _cli(str(path), *common)
        assert run.returncode == 0
        shown.append(run.stderr)
    assert shown[0] == shown[1]
    lines = shown[0].splitlines()
    assert "classify: counting with duckdb" in lines
    assert "classify: duckdb: fetching the candidates of depth 3 (4 of 4)" in lines
    assert lines[-1].startswith("classify: exact stage")
    timed = _cli(str(tmp_path / "0.csv"), *common, "--diagnostics")
    assert all(line.endswith(" s)") for line in timed.stderr.splitlines()
               if line.startswith("classify: "))


def test_memory_engine_reads_a_directory_of_text_files(tmp_path: Path) -> None:
    tree = kary_tree(2, 3)
    (tmp_path / "a.txt").write_text("0/1\n1/1\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("0/1\n", encoding="utf-8")
    leaves, _ = read_leaves(Source.of(str(tmp_path)), tree)
    assert leaves == [(0, 1), (1, 1), (0, 1)]
    (tmp_path / "b.txt").write_text("0/1\n0/2\n", encoding="utf-8")
    with pytest.raises(SourceRecordError, match=r"b\.txt, line 2: component '2'"):
        read_leaves(Source.of(str(tmp_path)), tree)


def test_engine_and_null_diagnostics_go_under_the_header_only(tmp_path: Path) -> None:
    """Issue 18's release rule for the engines: their counts (and skipped nulls) are printed only
    with --diagnostics, on stderr, after the line saying they are not private."""
    import subprocess
    import sys

    data = tmp_path / "r.csv"
    data.write_text("id,path\n1,0/1\n2,\n3,1/0\n4,0/1\n", encoding="utf-8")
    for engine in ("memory", "duckdb"):
        argv = [sys.executable, "-m", "betweencut", "classify", str(data), "--column", "path",
                "--height", "3", "--tau", "30", "--epsilon", "1", "--delta", "0.05",
                "--engine", engine, "--skip-null", "--seed", "1", "--json"]
        quiet = subprocess.run(argv, capture_output=True, text=True, check=True)
        loud = subprocess.run([*argv, "--diagnostics"], capture_output=True, text=True,
                              check=True)
        assert quiet.stdout == loud.stdout and "null" not in quiet.stdout + quiet.stderr
        head, _, rest = loud.stderr.partition("diagnostics (NOT differentially private")
        assert ("records" not in head and "null_records_skipped" in rest) or engine != "memory"
        assert "records" in rest


def test_whitespace_is_what_str_strip_strips() -> None:
    """The written-out WHITESPACE (the engines' trim set) is exactly str.isspace's code points
    in this Python: the fast constant answers to the scan it replaced."""
    assert "".join(chr(c) for c in range(0x110000) if chr(c).isspace()) == WHITESPACE
