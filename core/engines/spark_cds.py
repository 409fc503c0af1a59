"""Class-data sharing for the Spark driver's JVM: the classes it loads at start-up, mapped from
an archive instead of read, verified and parsed from Spark's jars on every start.

Spark's session start is mostly class loading (about 20,000 classes from 280 jars): with the
archive the session starts in about half the time and the first DataFrame is built in about a
third (`bench/spark_startup.py`). JDK 17's dynamic archives are used: `prepare` (`python -m
betweencut.engines.spark_cds`, the test suite's first Spark test) runs one session whose driver
writes it at its exit (`-XX:ArchiveClassesAtExit`, asked by `BETWEENCUT_SPARK_CDS=write`), the
later ones map it (`-XX:SharedArchiveFile`). An ordinary command never writes one: recording
its classes made the JVM run the first command in 18 s instead of 10. Everything here is
chosen from the installation alone (the Java runtime, pyspark's jars, the environment that
builds the classpath), never from the data.

* **Where**: `$BETWEENCUT_CACHE_DIR`, else `$XDG_CACHE_HOME/betweencut`, else
  `~/.cache/betweencut`; the archive is `spark-cds/driver-KEY.jsa` (about 170 MB). `KEY` digests
  what the archive depends on (`archive_key`): pyspark's version and its jars (names, sizes,
  times), the Java runtime (the binary Spark's launcher runs and its `libjvm.so`), and the
  environment variables that change the driver's classpath. A pyspark or Java upgrade gives a
  new key, so a new archive is made; archives of other keys unused for `STALE_DAYS` are removed.
* **Written aside, then promoted**: the JVM writes to a name of its own (`....tmp`), its header
  last (after every region). A later start promotes a file whose header is complete (the
  archive's magic number, `MAGIC`) to the archive's name (`os.replace`, atomic), and removes a
  file still without it after `ABANDONED_SECONDS` (a JVM killed while writing). The JVM never
  maps a file being written: an archive cut short crashes it (SIGBUS), one without its header
  is refused.
* **Silent fallback**: the JVM checks the archive against its own build and classpath and
  starts without it when they differ; its CDS log is off (`QUIET`), so nothing reaches stderr,
  even with `--debug`. No cache directory (not writable, or a path the launcher's option
  parser would split), `BETWEENCUT_SPARK_CDS=0`, or any OS error: no archive, no message.
* A `--debug` session (`log=True`) never writes an archive: its JVM holds the caller's stderr,
  which would stay open for the archive's writing after the command has answered.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import time
from pathlib import Path

# JDK's CDS_DYNAMIC_ARCHIVE_MAGIC (0xf00baba8) as the header's first four bytes (little-endian).
MAGIC = (0xF00BABA8).to_bytes(4, "little")
# The JVM's CDS log off (every tag set starting with cds: a refused archive, a skipped class).
QUIET = "-Xlog:cds*=off"
ABANDONED_SECONDS = 600  # a file without its header this old: its writer is gone
STALE_DAYS = 7  # archives of another installation, unused this long, are removed
# Environment variables that change the driver JVM's classpath (or its runtime).
CLASSPATH_ENVIRONMENT = ("SPARK_HOME", "SPARK_CONF_DIR", "SPARK_DIST_CLASSPATH", "SPARK_CLASSPATH",
                         "SPARK_PREPEND_CLASSES", "PYSPARK_SUBMIT_ARGS", "HADOOP_CONF_DIR",
                         "YARN_CONF_DIR", "JAVA_HOME")


def cache_directory() -> Path:
    """The per-user cache directory of the archives (the module docstring)."""
    root = os.environ.get("BETWEENCUT_CACHE_DIR")
    if root:
        return Path(root) / "spark-cds"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    if not base.is_absolute():  # no home directory: never a folder under the working one
        raise ValueError("no home directory for the cache")
    return base / "betweencut" / "spark-cds"


def java_binary() -> str | None:
    """The `java` Spark's launcher runs (`bin/spark-class`): `$JAVA_HOME/bin/java`, else the
    one on the PATH."""
    home = os.environ.get("JAVA_HOME")
    found = os.path.join(home, "bin", "java") if home else shutil.which("java")
    return os.path.realpath(found) if found and os.path.exists(found) else None


def archive_key(spark_home: str, java: str) -> str:
    """A digest of what the archive depends on: pyspark's jars, the Java runtime, the
    environment of the classpath."""
    digest = hashlib.sha256()

    def add(*parts: object) -> None:
        digest.update(repr(parts).encode("utf-8", "surrogateescape"))

    add(os.path.realpath(spark_home))
    jars = os.path.join(spark_home, "jars")
    for entry in sorted(os.scandir(jars), key=lambda e: e.name):
        facts = entry.stat()
        add(entry.name, facts.st_size, facts.st_mtime_ns)
    runtime = Path(java).parent.parent
    for path in (Path(java), runtime / "lib" / "server" / "libjvm.so", runtime / "release"):
        if path.exists():
            facts = path.stat()
            add(str(path), facts.st_size, facts.st_mtime_ns)
    add(*(os.environ.get(name) for name in CLASSPATH_ENVIRONMENT))
    return digest.hexdigest()[:24]


def complete(path: Path) -> bool:
    """The file's header is written (the JVM writes it after every region)."""
    try:
        with open(path, "rb") as file:
            return file.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def driver_options(spark_home: str, *, write: bool = True) -> str:
    """The driver JVM's options for class-data sharing: map the archive of this installation,
    else (if `write`) write one at exit; "" when none can be used (the module docstring)."""
    if os.environ.get("BETWEENCUT_SPARK_CDS", "1") == "0":
        return ""
    try:
        java = java_binary()
        if java is None:
            return ""
        folder = cache_directory()
        if any(c.isspace() or c in "\"'\\" for c in str(folder)):
            return ""  # SPARK_SUBMIT_OPTS is split at spaces and quotes by Spark's launcher
        key = archive_key(spark_home, java)
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        archive = folder / f"driver-{key}.jsa"
        writing = _tidy(folder, key, archive)
        if archive.is_file() and complete(archive):
            with contextlib.suppress(OSError):  # used: kept by other installations' tidying
                os.utime(archive)
            return f"-XX:SharedArchiveFile={archive} {QUIET}"
        if not write or writing:
            return ""
        aside = folder / f"driver-{key}.{os.getpid()}-{os.urandom(4).hex()}.tmp"
        aside.touch(mode=0o600)  # marks the writing for other starts (the JVM replaces it)
        return f"-XX:ArchiveClassesAtExit={aside} {QUIET}"
    except (OSError, ValueError, RuntimeError):  # RuntimeError: Path.home() found none
        return ""


def _tidy(folder: Path, key: str, archive: Path) -> bool:
    """Promote this key's complete files to `archive`, remove abandoned ones and other keys'
    stale archives; whether a file of this key is being written."""
    now, writing = time.time(), False
    for path in folder.iterdir():
        name = path.name
        try:
            age = now - path.stat().st_mtime
            if name.startswith(f"driver-{key}.") and name.endswith(".tmp"):
                if complete(path):
                    os.replace(path, archive)
                elif age > ABANDONED_SECONDS:
                    path.unlink()
                else:
                    writing = True
            elif name.startswith("driver-") and path != archive and age > STALE_DAYS * 86400:
                path.unlink()
        except OSError:  # another process promoted or removed it first
            continue
    return writing


def spark_home() -> str:
    """The Spark installation pyspark launches: `$SPARK_HOME`, else pyspark's own directory
    (a pip install holds the jars)."""
    import pyspark

    return os.environ.get("SPARK_HOME") or os.path.dirname(os.path.abspath(pyspark.__file__))


def main() -> int:
    """`python -m betweencut.engines.spark_cds`: make this installation's archive now (about a
    minute, once per pyspark and Java installation) and print where it is."""
    found = prepare(spark_home())
    print(found if found is not None else "no archive can be made here (see the module doc)")
    return 0 if found is not None else 1


def prepare(spark_home: str, *, timeout: float = 600.0) -> Path | None:
    """This installation's archive, made now if there is none: a `classify` with the Spark
    engine on a small CSV, in a child process whose driver writes the archive at its exit;
    waits (at most `timeout` seconds) until it is complete and promoted. None if no archive
    can be made here (the module docstring's fallbacks). For test suites and benchmarks, whose
    many short sessions would otherwise each start without it."""
    import subprocess
    import sys
    import tempfile

    if os.environ.get("BETWEENCUT_SPARK_CDS", "1") == "0" or java_binary() is None:
        return None
    try:
        cache_directory()
    except (ValueError, RuntimeError):
        return None
    deadline, started = time.monotonic() + timeout, False
    with tempfile.TemporaryDirectory(prefix="betweencut-cds-") as tmp:
        csv = Path(tmp) / "records.csv"
        csv.write_text("rec\n0/1\n1/0\n\n", encoding="utf-8")
        while time.monotonic() < deadline:
            mapped = driver_options(spark_home, write=False)  # promotes a complete file
            if mapped:
                return Path(mapped.split()[0].split("=", 1)[1])
            if not _writing(spark_home):
                if started:  # the child's driver asked for no archive: none can be made
                    return None
                subprocess.run(
                    [sys.executable, "-m", "betweencut", "classify", str(csv), "--height", "3",
                     "--tau", "30", "--epsilon", "1", "--delta", "0.05", "--engine", "spark",
                     "--skip-null"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL, timeout=max(1.0, deadline - time.monotonic()),
                    check=False, env={**os.environ, "BETWEENCUT_SPARK_CDS": "write"})
                started = True
                continue
            time.sleep(1.0)
    return None


def _writing(spark_home: str) -> bool:
    """A file of this installation's key is being written."""
    java = java_binary()
    folder = cache_directory()
    if java is None or not folder.is_dir():
        return False
    key = archive_key(spark_home, java)
    return any(p.name.startswith(f"driver-{key}.") and p.name.endswith(".tmp")
               for p in folder.iterdir())


if __name__ == "__main__":
    raise SystemExit(main())

