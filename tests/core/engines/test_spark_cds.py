"""The Spark driver's class-data sharing archive (`betweencut.engines.spark_cds`): written aside
by one session and promoted once complete, mapped by the later ones, never mapped incomplete,
made again after an upgrade, and a JVM that cannot use it starts silently without it."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from betweencut.engines import spark_cds
from betweencut.engines.spark_cds import ABANDONED_SECONDS, MAGIC, QUIET, STALE_DAYS


@pytest.fixture
def install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake installation: SPARK_HOME with two jars, JAVA_HOME with a `java` and a
    `libjvm.so`, and a cache directory of its own; returns SPARK_HOME."""
    home = tmp_path / "spark"
    (home / "jars").mkdir(parents=True)
    for name in ("spark-core.jar", "spark-sql.jar"):
        (home / "jars" / name).write_bytes(b"jar " + name.encode())
    java = tmp_path / "jdk"
    (java / "bin").mkdir(parents=True)
    (java / "lib" / "server").mkdir(parents=True)
    (java / "bin" / "java").write_text("#!/bin/sh\n")
    (java / "lib" / "server" / "libjvm.so").write_bytes(b"jvm 17")
    monkeypatch.setenv("JAVA_HOME", str(java))
    monkeypatch.setenv("BETWEENCUT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("BETWEENCUT_SPARK_CDS", raising=False)
    return home


def _folder(tmp_path: Path) -> Path:
    return tmp_path / "cache" / "spark-cds"


def _written(options: str) -> Path:
    assert options.startswith("-XX:ArchiveClassesAtExit="), options
    return Path(options.split()[0].split("=", 1)[1])


def _age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_spark_cds_written_aside_promoted_when_complete_then_mapped(install: Path,
                                                                   tmp_path: Path) -> None:
    first = spark_cds.driver_options(str(install))
    aside = _written(first)
    assert first.endswith(QUIET) and aside.suffix == ".tmp" and aside.exists()
    # being written (no header yet, young): neither mapped nor written a second time
    assert spark_cds.driver_options(str(install)) == ""
    aside.write_bytes(MAGIC + b"\0" * 64)  # the JVM writes the header last
    mapped = spark_cds.driver_options(str(install))
    archive = Path(mapped.split()[0].split("=", 1)[1])
    assert mapped == f"-XX:SharedArchiveFile={archive} {QUIET}"
    assert archive.name.endswith(".jsa") and not aside.exists()
    assert spark_cds.driver_options(str(install)) == mapped


def test_spark_cds_never_maps_an_archive_without_its_header(install: Path,
                                                           tmp_path: Path) -> None:
    """Wrong inputs: a file the JVM left without its header (killed while writing), and an
    archive whose header is not the dynamic archive's magic; neither is mapped (a JVM that maps
    an archive cut short crashes)."""
    aside = _written(spark_cds.driver_options(str(install)))
    aside.write_bytes(b"\0" * 4096)
    _age(aside, ABANDONED_SECONDS + 1)
    again = spark_cds.driver_options(str(install))
    assert not aside.exists() and _written(again) != aside  # abandoned: removed, written anew
    key = spark_cds.archive_key(str(install), str(Path(os.environ["JAVA_HOME"]) / "bin/java"))
    archive = _folder(tmp_path) / f"driver-{key}.jsa"
    archive.write_bytes(b"\xa8\xab\x0b\xf1" + b"\0" * 64)  # not the magic
    assert spark_cds.driver_options(str(install), write=False) == ""
    assert not spark_cds.complete(archive)


def test_spark_cds_new_archive_after_an_upgrade_and_stale_ones_removed(install: Path,
                                                                      tmp_path: Path) -> None:
    aside = _written(spark_cds.driver_options(str(install)))
    aside.write_bytes(MAGIC)
    old = Path(spark_cds.driver_options(str(install)).split()[0].split("=", 1)[1])
    (install / "jars" / "spark-core.jar").write_bytes(b"jar spark-core 4.4")  # an upgrade
    upgraded = spark_cds.driver_options(str(install))
    assert _written(upgraded).name.split(".")[0] != old.stem  # a new key, written anew
    assert old.exists()  # another installation's archive, used recently: kept
    _age(old, STALE_DAYS * 86400 + 1)
    spark_cds.driver_options(str(install))
    assert not old.exists()
    java = Path(os.environ["JAVA_HOME"]) / "lib" / "server" / "libjvm.so"
    before = spark_cds.archive_key(str(install), str(Path(os.environ["JAVA_HOME"]) / "bin/java"))
    java.write_bytes(b"jvm 17.0.16")
    assert spark_cds.archive_key(str(install),
                                 str(Path(os.environ["JAVA_HOME"]) / "bin/java")) != before


def test_spark_cds_off_unwritable_or_unsplittable_gives_no_option(
        install: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert spark_cds.driver_options(str(install), write=False) == ""  # --debug never writes
    monkeypatch.setenv("BETWEENCUT_SPARK_CDS", "0")
    assert spark_cds.driver_options(str(install)) == ""
    monkeypatch.delenv("BETWEENCUT_SPARK_CDS")
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the directory would be")
    monkeypatch.setenv("BETWEENCUT_CACHE_DIR", str(blocked))
    assert spark_cds.driver_options(str(install)) == ""
    monkeypatch.setenv("BETWEENCUT_CACHE_DIR", str(tmp_path / "with space"))
    assert spark_cds.driver_options(str(install)) == ""
    monkeypatch.delenv("BETWEENCUT_CACHE_DIR")  # no home directory: never the working one
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(Path, "home", lambda: Path("~"))
    monkeypatch.chdir(tmp_path)
    assert spark_cds.driver_options(str(install)) == "" and not (tmp_path / "~").exists()
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-jdk"))
    monkeypatch.setenv("BETWEENCUT_CACHE_DIR", str(tmp_path / "cache"))
    assert spark_cds.driver_options(str(install)) == ""
    assert spark_cds.prepare(str(install), timeout=5) is None  # no Java: nothing started


@pytest.mark.spark
def test_spark_cds_a_jvm_refusing_the_archive_starts_silently(tmp_path: Path) -> None:
    """Wrong archives for the JVM: one without its header, and one made for another classpath;
    with `QUIET` the JVM starts without them and prints nothing but its version."""
    java = shutil.which("java")
    if java is None:
        pytest.skip("no Java runtime")
    pytest.importorskip("pyspark")
    from betweencut.engines.spark import spark_home

    launcher = next((Path(spark_home()) / "jars").glob("spark-launcher*.jar"))
    empty = tmp_path / "empty.jsa"
    empty.write_bytes(b"\0" * 4096)
    foreign = tmp_path / "foreign.jsa"  # Spark's launcher classes, from its jar
    subprocess.run([java, f"-XX:ArchiveClassesAtExit={foreign}", "-Xlog:cds*=off", "-cp",
                    str(launcher), "org.apache.spark.launcher.Main"], capture_output=True,
                   timeout=300)
    assert spark_cds.complete(foreign)
    other = tmp_path / "other"
    other.mkdir()
    for archive in (empty, foreign):
        ran = subprocess.run([java, f"-XX:SharedArchiveFile={archive}", *QUIET.split(),
                              "-cp", str(other / "x.jar"), "-version"],
                             capture_output=True, text=True, timeout=300)
        assert ran.returncode == 0 and ran.stdout == ""
        assert "cds" not in ran.stderr and "archive" not in ran.stderr, ran.stderr
    loud = subprocess.run([java, f"-XX:SharedArchiveFile={foreign}", "-cp",
                           str(other / "x.jar"), "-version"], capture_output=True, text=True,
                          timeout=300)
    assert "archive" in loud.stdout + loud.stderr  # the check sees a refusal when logged
