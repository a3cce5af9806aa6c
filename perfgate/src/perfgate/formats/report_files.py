"""The report folder: ``report.md``, ``report.html`` and ``verdict.json``, the contract
between the commands that decide (``gate``, ``compare``) and ``perfgate post``.

``verdict.json`` (``VERDICT_API_VERSION`` 1) holds at least ``{"verdict": "pass|regression|
parity_failure|error", "exit_code": int, "summary": str, "head": "<sha>"}``; ``report.md``
starts with `MARKER`, the hidden line that finds the sticky PR comment again. Reports are
new files, written atomically; the gate moves an earlier report to ``previous/<time>/``.

The *report digest* (``sha256:<hex>``) is the sha256 of the manifest of the three files, one
``<sha256 of the file>  <name>`` line each in `REPORT_FILES` order. The gate computes it from
the bytes it writes and hands it on outside the folder (the log, a CI step output); ``perfgate
post --expect-digest`` refuses a folder whose files are not those bytes (rewritten after the
gate, e.g. by a process the benchmarks left behind).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfgate.atomic import check_output_dir, write_text_atomic
from perfgate.errors import UserError
from perfgate.verdict import VERDICT_NAMES

MARKER = "<!-- perfgate-report -->"
REPORT_FILES = ("report.md", "report.html", "verdict.json")
VERDICT_API_VERSION = 1


def check_report_dir(report_dir: str | os.PathLike[str]) -> None:
    """Refuse a report folder that cannot take new report files, before anything runs
    (an existing file, a path under a file, a place this process may not write)."""
    check_output_dir(report_dir, "report dir", "report.md, report.html and verdict.json")


def check_free(report_dir: str | os.PathLike[str]) -> None:
    """Refuse a folder that already holds a report (reports are never overwritten)."""
    existing = [name for name in REPORT_FILES if (Path(report_dir) / name).exists()]
    if existing:
        raise UserError(f"{report_dir} already holds {existing}; reports are never overwritten")


#: Objects of ``verdict.json`` whose keys are data (a case's parameter names), not fields.
DATA_KEYED = frozenset({"params"})


def field_names(document: Any) -> frozenset[str]:
    """The field names of a ``verdict.json`` document: every key at any depth but those of
    `DATA_KEYED` objects. Redaction leaves them alone (``perfgate post`` looks them up; a
    short secret once made ``exit_code`` ``***xit_cod***``); data keys are redacted."""
    names: set[str] = set()
    if isinstance(document, Mapping):
        for key, value in document.items():
            names.add(key)
            if key not in DATA_KEYED:
                names |= field_names(value)
    elif isinstance(document, list | tuple):
        for item in document:
            names |= field_names(item)
    return frozenset(names)


def write_reports(folder: Path, markdown: str, html: str, verdict: dict[str, Any]) -> str:
    """Write report.md, report.html and verdict.json as new files; return their digest."""
    texts = {
        "report.md": markdown,
        "report.html": html,
        "verdict.json": json.dumps(verdict, indent=1, sort_keys=True) + "\n",
    }
    for name in REPORT_FILES:
        write_text_atomic(folder / name, texts[name])
    return report_digest({name: text.encode("utf-8") for name, text in texts.items()})


def report_digest(contents: Mapping[str, bytes]) -> str:
    """``sha256:<hex>`` of the manifest of the report files' contents (module docstring)."""
    manifest = "".join(
        f"{hashlib.sha256(contents[name]).hexdigest()}  {name}\n" for name in REPORT_FILES
    )
    return "sha256:" + hashlib.sha256(manifest.encode("utf-8")).hexdigest()


def check_digest(report_dir: Path, expected: str) -> None:
    """Refuse (``ValueError``) report files that are not the ones the gate wrote."""
    if not expected.strip():
        raise ValueError(
            "no report digest from the gate (it wrote no report): the report files cannot "
            "be trusted"
        )
    try:
        found = report_digest({n: (report_dir / n).read_bytes() for n in REPORT_FILES})
    except OSError as exc:
        raise ValueError(f"report dir {report_dir}: {exc.strerror}: {exc.filename}") from None
    if found != expected.strip():
        raise ValueError(
            f"the report files in {report_dir} are not the ones the gate wrote (digest "
            f"{found}, the gate's {expected.strip()[:80]}): changed after the gate"
        )


#: Folders a report writes beside its files (the attributed sim cases' flame graphs and
#: kernel code diffs), archived with them.
REPORT_FOLDERS = ("attribution",)


def archive_previous(folder: Path) -> None:
    """Move an earlier report in ``folder`` (its files and `REPORT_FOLDERS`) to
    ``previous/<UTC time>/``."""
    existing = [folder / n for n in (*REPORT_FILES, *REPORT_FOLDERS) if (folder / n).exists()]
    if not existing:
        return
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = folder / "previous" / stamp
    target.mkdir(parents=True)
    for path in existing:
        os.replace(path, target / path.name)


@dataclass(frozen=True)
class ReportFiles:
    """A report folder as ``perfgate post`` reads it, checked."""

    markdown: str
    verdict: str
    exit_code: int
    summary: str


def _default_summary(verdict: object, reasons: object) -> str:
    """Summary when verdict.json has none: the first reason, else the verdict name."""
    if isinstance(reasons, list) and reasons and isinstance(reasons[0], str):
        return f"{verdict}: {reasons[0]}"
    return f"perfgate: {verdict}"


def _load(report_dir: Path) -> tuple[str, Any]:
    try:
        markdown = (report_dir / "report.md").read_text(encoding="utf-8")
        raw = (report_dir / "verdict.json").read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"report dir {report_dir}: {exc.strerror}: {exc.filename}") from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{report_dir / 'verdict.json'}: invalid JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{report_dir / 'verdict.json'}: expected a JSON object")
    return markdown, data


def _check_head(head: object, expect_head: str | None) -> None:
    if expect_head and not isinstance(head, str):
        raise ValueError(
            f"verdict.json head {head!r}: expected the commit the report is for "
            f"({expect_head[:40]}); a report that does not name its commit is never posted"
        )
    if expect_head and head != expect_head:
        raise ValueError(
            f"verdict.json head {str(head)[:40]!r} is not the commit posted to "
            f"({expect_head[:40]}): a stale or foreign report"
        )


def read_report(
    report_dir: Path, expect_head: str | None = None, expect_digest: str | None = None
) -> ReportFiles:
    """Read ``report.md`` + ``verdict.json``; ``ValueError`` names what is missing or wrong.

    With ``expect_head``, a verdict.json that names another head commit is refused: a stale
    artifact (or one from another run) must never set the status of the commit posted to.
    With ``expect_digest`` (the gate's report digest), files changed since the gate wrote
    them are refused.
    """
    if expect_digest is not None:
        check_digest(report_dir, expect_digest)
    markdown, data = _load(report_dir)
    verdict, code = data.get("verdict"), data.get("exit_code")
    verdict = verdict.lower() if isinstance(verdict, str) else verdict  # "PASS" == "pass"
    summary = data.get("summary", _default_summary(verdict, data.get("reasons")))
    if verdict not in VERDICT_NAMES:
        raise ValueError(f"verdict.json verdict {verdict!r}: expected {sorted(VERDICT_NAMES)}")
    if not isinstance(code, int) or isinstance(code, bool):
        raise ValueError(f"verdict.json exit_code {code!r}: expected an int")
    if not isinstance(summary, str):
        raise ValueError(f"verdict.json summary {summary!r}: expected a string")
    _check_head(data.get("head"), expect_head)
    expected = VERDICT_NAMES[verdict].exit_code
    if expected != code:
        raise ValueError(
            f"verdict.json: verdict {verdict!r} expects exit_code {expected}, got {code}"
        )
    return ReportFiles(markdown, verdict, code, summary)
