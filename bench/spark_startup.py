"""Where a Spark command's seconds go, from process start, and what class-data sharing saves.

Issue 39's last case (`tests/odd_commands.py`: `classify --engine spark --skip-null` on a CSV
holding a null record) must answer within 10 s of start-up. Each repeat runs, in fresh
processes and interleaved (the machine is shared: A and B see the same load):

* the baseline, `python -c "import pyspark"`;
* Spark's launcher JVM alone (`org.apache.spark.launcher.Main`, which `bin/spark-class` runs to
  build the driver's command line before the driver's own JVM starts);
* a timeline of one process (`--phase`, below), from its start: Python's imports, the gateway
  (the bash scripts, the launcher JVM, the driver JVM up to py4j), the SparkContext and
  SparkSession, the CSV's DataFrame (the session state: analyser, catalog), the warm-up's first
  job (`betweencut.engines.spark.classify`'s plans on the first records), the first job (the
  histogram, nulls and records counted in one pass) and the same job again; without and with
  the driver's class-data sharing archive (`betweencut.engines.spark_cds`);
* the whole command line of the case, without and with the archive.

Medians of `--repeat` runs, as seconds and as ratios to the baseline of the same run. The
archive is made first in a cache directory of the run's own (`spark_cds.prepare`: one
command line's session writes it at exit).

Run: python bench/spark_startup.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CSV = 'rec\n0/1/1\n""\n1/0/0\n'
ARGV = ["classify", "--height", "4", "--tau", "30", "--epsilon", "1", "--delta", "0.05",
        "--engine", "spark", "--skip-null", "--json"]
PHASE = """
import json, os, sys, time
t0 = float(sys.argv[1]); marks = []
def mark(name): marks.append((name, time.time() - t0))
mark("python started")
import pyspark.sql
from betweencut.data.tree import kary_tree
from betweencut.engines import sources, spark
from betweencut.engines.common import Source, TreeCodec
mark("imports (pyspark, betweencut's engine)")
from pyspark import SparkContext
os.environ["SPARK_SUBMIT_OPTS"] = (spark.DRIVER_JAVA_OPTIONS + " "
    + spark.spark_cds.driver_options(spark.spark_home(), write=False))
os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
null = os.open(os.devnull, os.O_WRONLY); saved = os.dup(1), os.dup(2)
os.dup2(null, 1); os.dup2(null, 2)
SparkContext._ensure_initialized()
mark("gateway: bash scripts, launcher JVM, driver JVM")
session = spark.session()
os.dup2(saved[0], 1); os.dup2(saved[1], 2)
mark("SparkContext and SparkSession")
files, kind = sources.resolve(sys.argv[2])
source = Source(files, kind, None, True, ())
frame = spark.read(session, source)
codec = TreeCodec.of(kary_tree(2, 4))
plan = spark._Plan(codec, 30, *spark.column_kind(frame, source, codec))
mark("the CSV's DataFrame (session state)")
plan.histogram(plan.codes(frame.limit(spark.WARM_UP_RECORDS)))
mark("warm-up: the first job on the first records")
plan.histogram(plan.codes(frame))
mark("first job: the histogram (nulls and records in one pass)")
plan.histogram(plan.codes(frame))
mark("the same job again")
print(json.dumps(marks))
"""


def _seconds(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False, timeout=600)
    return time.perf_counter() - start


def _phases(env: dict[str, str], csv: Path) -> list[tuple[str, float]]:
    ran = subprocess.run([sys.executable, "-c", PHASE, repr(time.time()), str(csv)], env=env,
                         capture_output=True, text=True, check=True, timeout=600)
    marks = json.loads(ran.stdout.strip().splitlines()[-1])
    return [(name, t - (marks[i - 1][1] if i else 0.0)) for i, (name, t) in enumerate(marks)]


def _make_archive(env: dict[str, str], cache: Path) -> None:
    """The archive as the first command line makes it (`spark_cds.prepare`, in a child process
    with the run's environment)."""
    made = subprocess.run([sys.executable, "-c", "from betweencut.engines import spark, "
                           "spark_cds; print(spark_cds.prepare(spark.spark_home()))"], env=env,
                          capture_output=True, text=True, check=True, timeout=900)
    if made.stdout.strip() == "None":
        raise SystemExit("no class-data sharing archive could be made here")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from betweencut.engines import spark

    home = spark.spark_home()
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "nulls.csv"
        csv.write_text(CSV, encoding="utf-8")
        cache = Path(tmp) / "cache"
        off = {**os.environ, "BETWEENCUT_SPARK_CDS": "0", "BETWEENCUT_CACHE_DIR": str(cache)}
        on = {**os.environ, "BETWEENCUT_SPARK_CDS": "1", "BETWEENCUT_CACHE_DIR": str(cache)}
        _make_archive(on, cache)
        jars = os.path.join(home, "jars", "*")
        launcher = ["java", "-Xmx128m", "-cp", jars, "org.apache.spark.launcher.Main",
                    "org.apache.spark.deploy.SparkSubmit", "pyspark-shell"]
        script = [sys.executable, "-m", "betweencut", *ARGV[:1], str(csv), *ARGV[1:]]
        rows: dict[str, list[float]] = {}
        for _ in range(args.repeat):
            rows.setdefault("baseline: python -c 'import pyspark'", []).append(
                _seconds([sys.executable, "-c", "import pyspark"], off))
            rows.setdefault("launcher JVM alone (spark-class's first java)", []).append(
                _seconds(launcher, off))
            for label, env in (("no archive", off), ("archive", on)):
                for name, seconds in _phases(env, csv):
                    rows.setdefault(f"[{label}] {name}", []).append(seconds)
            for label, env in (("no archive", off), ("archive", on)):
                rows.setdefault(f"[{label}] the whole command line", []).append(
                    _seconds(script, env))
        base = statistics.median(rows["baseline: python -c 'import pyspark'"])
        print(f"medians of {args.repeat} (interleaved), seconds and ratio to the baseline")
        for name, values in rows.items():
            median = statistics.median(values)
            print(f"{name[:78]:78} {median:7.2f} {median / base:7.1f}x")


if __name__ == "__main__":
    main()
