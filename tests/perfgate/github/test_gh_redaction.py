"""A token planted in every published field never reaches GitHub or the output, in any form.

The report and verdict of a run may carry a secret (a benchmark printed it, a parity result
copied it); `perfgate post` must send the comment body, the status description and target
URL, and print its dry run, without any form of it: raw, markdown-escaped as the renderer
writes it (``ghs\\_...``), HTML-escaped or URL-encoded. The status description is cut to 140
characters *after* redaction, so not even a prefix of a secret survives.
"""

from __future__ import annotations

import html
import io
import json
import logging
import string
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import pg_results_factory as f
import pytest
from gh_env import TOKEN, actions_env
from gh_fake_api import FakeServer
from test_gh_poster import FAST, REPORT_URL, SAMPLE_MD, SHA, SleepLog

from perfgate import cli
from perfgate.gate.publish import post_report
from perfgate.report.render import md_escape

#: A second secret, with every character the escapers touch.
PAT = "github_pat_with*stars&<amp>|pipe`tick[x]#y/z+w@v"
SECRETS = (TOKEN, PAT)


def _forms(secret: str) -> list[str]:
    escaped = md_escape(secret)
    return [
        secret,
        escaped,
        html.escape(secret),
        html.escape(secret, quote=False),
        quote(secret),
        quote(secret, safe=""),
        quote_plus(secret),
        json.dumps(secret)[1:-1],
    ]


FORMS = [form for secret in SECRETS for form in _forms(secret)]


def _leaks(text: str) -> list[str]:
    """Pieces of 10 characters of any form of any secret found in ``text``."""
    return sorted(
        {form[i : i + 10] for form in FORMS for i in range(len(form) - 9)} & _pieces(text)
    )


def _pieces(text: str) -> set[str]:
    return {text[i : i + 10] for i in range(len(text) - 9)}


def _planted_report(directory: Path) -> Path:
    directory.mkdir(parents=True)
    planted = " ".join(f"`{form}`" if i % 2 else form for i, form in enumerate(FORMS))
    markdown = SAMPLE_MD + f"\nparity output: {planted}\n"
    (directory / "report.md").write_text(markdown, encoding="utf-8")
    # the secret straddles the 140-character cut of the status description
    summary = "regression: " + "x" * 120 + TOKEN + " and " + md_escape(PAT)
    verdict = {"verdict": "regression", "exit_code": 1, "summary": summary, "head": SHA}
    (directory / "verdict.json").write_text(json.dumps(verdict), encoding="utf-8")
    return directory


def _published(server: FakeServer) -> list[Any]:
    return [r.body for r in server.fake.requests if r.method in ("POST", "PATCH")]


@pytest.fixture
def url() -> str:
    """A target URL carrying both secrets, URL-encoded."""
    return f"{REPORT_URL}?token={quote(TOKEN)}&pat={quote_plus(PAT)}"


def test_planted_secrets_never_reach_github(
    server: FakeServer,
    tmp_path: Path,
    url: str,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)
    env = actions_env(server, GH_PAT=PAT)
    report = _planted_report(tmp_path / "r")
    code = post_report(
        pr=1, report_dir=report, report_url=url, env=env, policy=FAST, sleep=SleepLog()
    )
    assert code == 0
    (comment,) = server.fake.comments.values()
    (status,) = server.fake.statuses
    fields = [comment["body"], status["description"], status["target_url"]]
    assert "parity output: ***" in comment["body"] and status["target_url"].endswith("pat=***")
    out, err = capsys.readouterr()
    for text in (*fields, json.dumps(_published(server)), caplog.text, out, err):
        assert _leaks(text) == []


def test_planted_secrets_never_reach_the_dry_run(
    server: FakeServer, tmp_path: Path, url: str
) -> None:
    env = actions_env(server, GH_PAT=PAT)
    out = io.StringIO()
    code = post_report(
        pr=1, report_dir=_planted_report(tmp_path / "r"), report_url=url, env=env,
        dry_run=True, out=out,
    )  # fmt: skip
    assert code == 0 and server.fake.requests == []
    assert "parity output: ***" in out.getvalue()
    assert _leaks(out.getvalue()) == []


#: Issue 30 item 2: a short credential in a URL, and how a probe wrote it.
SHORT_URL = "postgres://u:pw@h/db"


def _percent(text: str) -> str:
    return "".join(f"%{b:02X}" for b in text.encode())


CREDENTIAL_FORMS = {
    "raw": lambda s: s,
    "%-encoded": _percent,
    "%-encoded, lowercase hex": lambda s: _percent(s).lower(),
    "decimal entities": lambda s: "".join(f"&#{ord(c)};" for c in s),
    "hex entities": lambda s: "".join(f"&#x{ord(c):x};" for c in s),
    "backslash-escaped markdown": lambda s: "".join(
        "\\" + c if c in string.punctuation else c for c in s
    ),
}


def _credential_leaks(text: str, form: str) -> list[str]:
    """Pieces of ``u:pw`` or ``pw`` in ``text``: raw, or each character of the password in
    the planted form (an entity's ``&`` may have been escaped again on the way)."""
    encode = CREDENTIAL_FORMS[form]
    pieces = {"pw", "u:pw", *(encode(c).lstrip("&").lower() for c in "pw")}
    return sorted(p for p in pieces if p in text.lower() and p not in ("p", "w"))


@pytest.mark.parametrize("form", CREDENTIAL_FORMS)
def test_a_short_url_credential_never_leaves_in_any_encoding(
    server: FakeServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    form: str,
) -> None:
    """The probe's case end to end: ``DATABASE_URL=postgres://u:pw@h/db`` set, ``u:pw``
    printed by the parity command in one encoding. ``perfgate compare`` prints and writes
    the report (stdout, report.md, report.html, verdict.json), ``perfgate post`` posts the
    comment and the status: none carries the credential, in that encoding or any other."""
    monkeypatch.setenv("DATABASE_URL", SHORT_URL)
    planted = CREDENTIAL_FORMS[form]("u:pw")
    parity = tmp_path / "parity.json"
    summary = f"1 failed: could not connect as {planted}@h"
    parity.write_text(json.dumps({"status": "failed", "command": "make", "summary": summary}))
    root, out = tmp_path / "res", tmp_path / "out"
    bench = f.Bench("hot.K.time_k", ("n",), ((8,),))
    f.build_tree(root, [bench], lambda *_: 1e-3)
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.perfgate]\nconfirm = false\nblocking = ['^hot']\n")
    argv = ["compare", str(root), "--base", f.BASE_SHA, "--head", f.HEAD_SHA]
    argv += ["--config", str(config)]
    code = cli.main([*argv, "--parity-result", str(parity), "--report-dir", str(out)])
    assert code == 2
    printed = capsys.readouterr()
    env = actions_env(server, DATABASE_URL=SHORT_URL)
    assert post_report(pr=1, report_dir=out, sha=f.HEAD_SHA, env=env, policy=FAST) == 0
    (comment,) = server.fake.comments.values()
    (status,) = server.fake.statuses
    outputs = {
        "stdout": printed.out,
        "stderr": printed.err,
        **{
            name: (out / name).read_text() for name in ("report.md", "report.html", "verdict.json")
        },
        "comment": comment["body"],
        "status": status["description"],
    }
    assert "could not connect as ***@h" in outputs["status"]
    assert {name: _credential_leaks(text, form) for name, text in outputs.items()} == {
        name: [] for name in outputs
    }


#: Issue 37 item 2: a one-character password.
ONE_CHAR_URL = "postgres://u:e@h/db"


def test_a_one_character_password_does_not_wreck_the_report(
    server: FakeServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``DATABASE_URL=postgres://u:e@h/db`` set: every "e" of the report was starred out,
    verdict.json's keys became ``***xit_cod***``, and ``post --dry-run`` said "verdict
    None" and planned an error status. Now the report reads as written and post reads the
    verdict; the credential, printed as one, is still redacted."""
    monkeypatch.setenv("DATABASE_URL", ONE_CHAR_URL)
    parity = tmp_path / "parity.json"
    summary = "1 failed: could not connect as u:e@h, exit code 1"
    parity.write_text(json.dumps({"status": "failed", "command": "make", "summary": summary}))
    root, out = tmp_path / "res", tmp_path / "out"
    f.build_tree(root, [f.Bench("hot.K.time_k", ("n",), ((8,),))], lambda *_: 1e-3)
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.perfgate]\nconfirm = false\nblocking = ['^hot']\n")
    argv = ["compare", str(root), "--base", f.BASE_SHA, "--head", f.HEAD_SHA]
    argv += ["--config", str(config), "--parity-result", str(parity), "--report-dir", str(out)]
    assert cli.main(argv) == 2
    verdict = json.loads((out / "verdict.json").read_text())
    assert {"exit_code", "verdict", "reasons", "cases"} <= set(verdict)
    assert verdict["verdict"] == "parity_failure" and verdict["exit_code"] == 2
    assert verdict["cases"][0]["params"] == {"n": "8"}
    report = (out / "report.md").read_text()
    assert "could not connect as ***@" in report and "u:e@" not in report
    assert "perfgate" in report and "***erfgat***" not in report
    capsys.readouterr()
    printed = io.StringIO()
    env = actions_env(server, DATABASE_URL=ONE_CHAR_URL)
    code = post_report(pr=1, report_dir=out, sha=f.HEAD_SHA, env=env, dry_run=True, out=printed)
    assert code == 0
    first = printed.getvalue().splitlines()[0]
    assert "= failure: PARITY FAILURE" in first and "could not connect as ***@h" in first


def test_field_names_of_verdict_json_are_never_redacted(tmp_path: Path) -> None:
    """A secret spelled like a field of verdict.json (``exit_code``...) leaves the fields
    alone; a case's parameter names are data and are redacted."""
    from perfgate.formats.report_files import field_names
    from perfgate.secrets import Redactor

    document = {
        "exit_code": 1,
        "reasons_text": "exit_code_secret in a reason",
        "cases": [{"params": {"exit_code_secret": "1"}, "note": ""}],
    }
    redactor = Redactor.of(["exit_code_secret", "reasons_text"])
    redacted = redactor.value(document, keep=field_names(document))
    assert redacted == {
        "exit_code": 1,
        "reasons_text": "*** in a reason",
        "cases": [{"params": {"***": "1"}, "note": ""}],
    }


def test_a_token_split_by_a_newline_or_base64_encoded_in_a_param_never_leaves(
    server: FakeServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 37 item 3: a benchmark parameter holding the token split by a newline (the
    report shows ``ghs_...ab cdef...``) and one holding its base64 form were published in
    stdout, report.md and the comment."""
    import base64

    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    split = repr(TOKEN[:12] + "\n" + TOKEN[12:])
    b64 = base64.b64encode(f"tok={TOKEN}".encode()).decode()
    encoded = repr(b64)
    root, out = tmp_path / "res", tmp_path / "out"
    bench = f.Bench("hot.K.time_k", ("t",), ((split, encoded),))
    f.build_tree(root, [bench], lambda *_: 1e-3)
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.perfgate]\nconfirm = false\nblocking = ['^hot']\n")
    argv = ["compare", str(root), "--base", f.BASE_SHA, "--head", f.HEAD_SHA]
    assert cli.main([*argv, "--config", str(config), "--report-dir", str(out)]) == 0
    printed = capsys.readouterr()
    assert post_report(pr=1, report_dir=out, sha=f.HEAD_SHA, env=actions_env(server)) == 0
    (comment,) = server.fake.comments.values()
    texts = {
        "stdout": printed.out,
        "stderr": printed.err,
        **{
            name: (out / name).read_text() for name in ("report.md", "report.html", "verdict.json")
        },
        "comment": comment["body"],
    }
    pieces = {TOKEN[i : i + 8] for i in range(len(TOKEN) - 7)}
    pieces |= {b64[i : i + 10] for i in range(6, len(b64) - 12)}
    assert {name: sorted(p for p in pieces if p in text) for name, text in texts.items()} == {
        name: [] for name in texts
    }
    assert texts["report.md"].count("***") >= 2
