"""MkDocs hook: the pages generated from the code, so that they cannot drift from it.

A page holds a marker `<!-- generated: NAME -->`; at build time the marker is replaced by
`GENERATORS[NAME]()`:

* `cli`: the command line, walked from the parser itself (`betweencut.cli.build_parser`);
* `claims`: the claims table, one row per checker of the registry
  (`betweencut.proofs.registry.CLAIMS`); the test and method of each row come from
  `docs/hooks/claims.toml`, and a checker missing there (or listed there but not registered)
  fails the build;
* `checkers`: the API reference of every registered checker (mkdocstrings blocks);
* `schemas`: the JSON Schema of every `--json` output (`betweencut.schemas`), each also
  published as a file of the site (`schemas/<kind>.schema.json`);
* `published`: the published-bugs corpus, one row per bug as published and per fix, with its
  report and the exact verdict the build computes (`audit_published_corpus`).

`tests/project/test_docs_examples.py` imports these functions too.
"""

from __future__ import annotations

import argparse
import json
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CLAIMS_DATA = HERE / "claims.toml"
MARKER = "<!-- generated: {} -->"
METHODS = ("exact", "interval", "enumerated", "property")


class DocsDrift(Exception):
    """A generated page and the code disagree (the build fails with this message)."""


# --- the command line ----------------------------------------------------------------------

def _escape(text: str) -> str:
    """Plain text as Markdown (no emphasis, links or HTML read into it)."""
    for ch in "\\`*_[]|":
        text = text.replace(ch, "\\" + ch)
    text = text.replace("<", "&lt;").replace(">", "&gt;")
    return " ".join(text.split())


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _walk(parser: argparse.ArgumentParser,
          words: list[str]) -> list[tuple[list[str], argparse.ArgumentParser]]:
    found = [(words, parser)]
    for name, child in _subcommands(parser).items():
        found.extend(_walk(child, [*words, name]))
    return found


def _anchor(words: list[str]) -> str:
    return "-".join(words)


def _option_rows(parser: argparse.ArgumentParser, words: list[str]) -> list[str]:
    rows = []
    formatter = parser._get_formatter()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                target = _anchor([*words, name])
                rows.append(f"| [`{name}`](#{target}) | | | {_escape(child.description or '')} |")
            continue
        if action.help == argparse.SUPPRESS:
            continue
        name = ", ".join(f"`{o}`" for o in action.option_strings) or f"`{action.dest.upper()}`"
        if action.option_strings and action.nargs != 0:
            value = action.metavar or (
                "{" + ",".join(map(str, action.choices)) + "}" if action.choices
                else action.dest.upper())
            value = f"`{value}`"
        else:
            value = ""
        default = action.default
        shown = ("" if default in (None, False, argparse.SUPPRESS) or action.nargs == 0
                 else f"`{default}`")
        required = " (required)" if action.required and action.option_strings else ""
        help_text = _escape(formatter._expand_help(action) if action.help else "")
        rows.append(f"| {name} | {value} | {shown} | {help_text}{required} |")
    return rows


def cli_reference() -> str:
    """Every command and option of `betweencut`, from the parser the command line runs."""
    from betweencut.cli import build_parser

    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"  # argparse wraps the usage line to the terminal's width
    try:
        parser = build_parser()
        parts = []
        for words, p in _walk(parser, ["betweencut"]):
            level = "#" * min(len(words) + 1, 4)
            parts.append(f"{level} {' '.join(words)} {{ #{_anchor(words)} }}\n")
            if p.description:
                parts.append(_escape(p.description) + "\n")
            parts.append("```text\n" + p.format_usage().strip() + "\n```\n")
            rows = _option_rows(p, words)
            if rows:
                parts.append("| argument | value | default | meaning |\n|---|---|---|---|")
                parts.append("\n".join(rows) + "\n")
            if p.epilog:
                examples = p.epilog.removeprefix("example:").strip("\n")
                parts.append("Example:\n\n```text\n"
                             + "\n".join(line.strip() for line in examples.splitlines())
                             + "\n```\n")
        return "\n".join(parts)
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous


# --- the claims table ----------------------------------------------------------------------

@dataclass(frozen=True)
class ClaimRow:
    """One row of the claims table: a registered checker and what the docs say of it."""

    claim: str  # the registry's claim name
    equations: tuple[str, ...]
    checker: str  # dotted path under betweencut., e.g. proofs.laws.targets.check_lemma_5_2
    shown: str  # the claim as the table shows it (with its scope)
    test: str  # tests/FILE.py::test_name
    method: str


def registered_checkers() -> dict[str, tuple[str, tuple[str, ...]]]:
    """`{checker path: (claim, equations)}` for every checker of the registry."""
    import betweencut.properties.coupling
    import betweencut.properties.heavy_only
    import betweencut.properties.margin
    import betweencut.properties.predicates  # noqa: F401  (they register the structural claims)
    from betweencut.proofs import CLAIMS, audit_cases

    audit_cases()  # imports every checker module of proofs/
    found = {}
    for fns in CLAIMS.values():
        for fn in fns:
            name, equations = fn.__betweencut_claim__  # type: ignore[attr-defined]
            found[f"{fn.__module__.removeprefix('betweencut.')}.{fn.__name__}"] = (
                name, tuple(equations))
    return found


def claim_rows() -> list[ClaimRow]:
    """The table's rows in registry order; `DocsDrift` if the registry and claims.toml differ."""
    data = tomllib.loads(CLAIMS_DATA.read_text(encoding="utf-8"))
    registered = registered_checkers()
    missing = sorted(set(registered) - set(data))
    extra = sorted(set(data) - set(registered))
    if missing or extra:
        raise DocsDrift(
            "docs/hooks/claims.toml and the claim registry disagree: "
            + (f"registered but not described: {missing}; " if missing else "")
            + (f"described but not registered: {extra}" if extra else ""))
    rows = []
    for checker, entry in data.items():  # the order of claims.toml: paper, baselines, structure
        name, equations = registered[checker]
        method = entry["method"]
        if method.split()[0].rstrip(",") not in METHODS:
            raise DocsDrift(f"{checker}: method {method!r} starts with none of {METHODS}")
        rows.append(ClaimRow(name, equations, checker, entry["claim"], entry["test"], method))
    return rows


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def claims_table() -> str:
    rows = claim_rows()
    lines = [
        f"{len(rows)} checkers of {len({r.claim for r in rows})} claims.\n",
        "| claim | checker | test | method |", "|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {_cell(r.shown)} | [`{r.checker}`][betweencut.{r.checker}] | "
            f"`{_cell(r.test)}` | {_cell(r.method)} |")
    return "\n".join(lines) + "\n"


def checkers_reference() -> str:
    """One mkdocstrings block per registered checker, grouped by module."""
    by_module: dict[str, list[str]] = {}
    for r in claim_rows():
        module, _, _name = r.checker.rpartition(".")
        by_module.setdefault(module, []).append(r.checker)
    parts = []
    for module in sorted(by_module):
        parts.append(f"## `betweencut.{module}`\n")
        for checker in by_module[module]:
            parts.append(f"::: betweencut.{checker}\n    options:\n      heading_level: 3\n")
    return "\n".join(parts)


# --- the JSON Schemas ----------------------------------------------------------------------

def schema_texts() -> dict[str, str]:
    """`{kind: the schema file's text}` for every output kind, as shipped in the package."""
    from importlib import resources

    from betweencut import schemas

    return {kind: resources.files(schemas).joinpath(f"{kind}.schema.json").read_text("utf-8")
            for kind in schemas.KINDS}


def schemas_page() -> str:
    texts = schema_texts()
    parts = ["| output kind (`schema`) | what it is | schema file |", "|---|---|---|"]
    for kind, text in texts.items():
        title = _escape(json.loads(text).get("description", ""))
        parts.append(f"| `betweencut/{kind}` | {title} | "
                     f"[{kind}.schema.json](../schemas/{kind}.schema.json) |")
    parts.append("")
    for kind, text in texts.items():
        schema: dict[str, Any] = json.loads(text)
        parts.append(f"### `betweencut/{kind}`\n")
        required = schema.get("required", [])
        props = schema.get("properties", {})
        if props:
            parts.append("| key | required | meaning |\n|---|---|---|")
            for key, spec in props.items():
                meaning = _escape(spec.get("description", "")) if isinstance(spec, dict) else ""
                parts.append(f"| `{key}` | {'yes' if key in required else ''} | {meaning} |")
            parts.append("")
        parts.append(f'??? note "The schema: {kind}.schema.json"\n\n    ```json\n'
                     + "\n".join("    " + line for line in text.rstrip().splitlines())
                     + "\n    ```\n")
    return "\n".join(parts)


# --- the published-bugs corpus --------------------------------------------------------------

def published_table() -> str:
    """Every published row: what was audited, its report (where, when, link), the claim, the
    report's verdict and the exact one, computed now (a disagreement fails the build)."""
    from betweencut.proofs.baselines.corpus_checks.published_rows import audit_published_corpus

    lines = ["| row | audited | report | claim | report's verdict | exact verdict |",
             "|---|---|---|---|---|---|"]
    for verdict in audit_published_corpus():
        facts = verdict.facts
        if not facts.get("agrees"):
            raise DocsDrift(f"published row {facts['name']}: the exact verdict "
                            f"{facts['found']!r} disagrees with its report")
        report = facts["report"]
        subject = verdict.subject
        lines.append(
            f"| `{facts['name']}` | {_escape(str(subject.get('title', '')))} | "
            f"[{_escape(report['where'])}]({report['url']}), {report['date']}: "
            f"{_escape(report['published'])} | {_escape(verdict.claim.text)} "
            f"({verdict.claim.neighbours.value}) | {_escape(str(facts['literature']))} | "
            f"{_escape(str(facts['found']))}; {verdict.pairs} pair(s) |")
    return "\n".join(lines) + "\n"


GENERATORS = {
    "cli": cli_reference,
    "claims": claims_table,
    "checkers": checkers_reference,
    "schemas": schemas_page,
    "published": published_table,
}


# --- MkDocs events -------------------------------------------------------------------------

def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    for name, generate in GENERATORS.items():
        marker = MARKER.format(name)
        if marker in markdown:
            markdown = markdown.replace(marker, generate())
    return markdown


def on_files(files: Any, config: Any) -> Any:
    """Publish every schema file at `schemas/<kind>.schema.json` of the site."""
    from mkdocs.structure.files import File

    for kind, text in schema_texts().items():
        files.append(File.generated(config, f"schemas/{kind}.schema.json", content=text))
    return files
