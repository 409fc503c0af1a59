"""The cost of the one CSV reading (issue 29): `sources.scan_csv` against DuckDB reading the file.

Data: N rows `id,rec` (rec a path of 15 binary digits such as 0/1/1/...), one CSV under /tmp
(never in the repo). Baseline, in the same run: DuckDB counting the record column by value with
the reader the engine used before (`read_csv` with a header, all VARCHAR, no checks). Measured:
the scan alone (every check of `CsvTable`, numpy over 16 MiB chunks), and DuckDB counting with
the new reader (`sources.duckdb_sql`, its scan included, a fresh file signature each time so the
scan's cache does not hide it). Prints seconds and ratios to the baseline; best of `--repeat`.

Run: python bench/csv_scan.py --rows 20000000 [--threads 2]
"""

from __future__ import annotations

import argparse
import os
import random
import time

from _common import data_path


def make(rows: int) -> str:
    path = data_path(f"records_{rows}.csv")
    if os.path.exists(path):
        return path
    rng = random.Random(1)
    hot = ["/".join(rng.choice("01") for _ in range(15)) for _ in range(64)]
    with open(path + ".part", "w", encoding="utf-8") as handle:
        handle.write("id,rec\n")
        for i in range(rows):
            rec = rng.choice(hot) if i % 5 else "/".join(rng.choice("01") for _ in range(15))
            handle.write(f"{i},{rec}\n")
    os.replace(path + ".part", path)
    return path


def best(repeat: int, run: object) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    import duckdb

    from betweencut.engines import sources

    path = make(args.rows)
    con = duckdb.connect()
    con.execute(f"SET threads = {args.threads}")
    old = ("SELECT rec, count(*) FROM read_csv($files, header = true, all_varchar = true, "
           "delim = ',', quote = '\"', escape = '\"') GROUP BY 1")

    def new() -> None:
        sources._csv_table.cache_clear()
        sql = sources.duckdb_sql([path], "csv", "rec")
        con.execute(f"SELECT rec, count(*) FROM {sql} GROUP BY 1", {"files": [path]}).fetchall()

    base = best(args.repeat, lambda: con.execute(old, {"files": [path]}).fetchall())
    scan = best(args.repeat, lambda: sources.scan_csv(path))
    full = best(args.repeat, new)
    size = os.path.getsize(path) / 1e6
    print(f"{args.rows} rows, {size:.0f} MB, DuckDB threads {args.threads} (shared 2-core machine)")
    print(f"baseline DuckDB read+count   {base:8.3f} s   1.00")
    rate = size / scan
    print(f"scan_csv alone               {scan:8.3f} s   {scan / base:.2f}  ({rate:.0f} MB/s)")
    print(f"new reader (scan + DuckDB)   {full:8.3f} s   {full / base:.2f}")


if __name__ == "__main__":
    main()
