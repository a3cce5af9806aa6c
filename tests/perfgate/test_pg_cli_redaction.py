"""`perfgate.cli.main`: error messages, logs and tracebacks leave without secrets."""

from __future__ import annotations

import argparse
import logging

import pytest

from perfgate import cli
from perfgate.commands import compare
from perfgate.errors import UserError
from perfgate.report.render import md_escape

TOKEN = "glpat-" + "cli_secret*value" * 2


@pytest.mark.parametrize("error", [UserError, RuntimeError])
def test_messages_and_tracebacks_are_redacted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], error: type
) -> None:
    """An exception carrying a secret (as text and markdown-escaped) is shown redacted,
    whether it is an expected error or a crash with its traceback."""
    monkeypatch.setenv("DEPLOY_PAT", TOKEN)

    def fail(args: argparse.Namespace) -> int:
        logging.getLogger("perfgate.test").error("log line %s", TOKEN)
        print(f"stdout line {TOKEN}")
        raise error(f"failed with {TOKEN} and {md_escape(TOKEN)}")

    monkeypatch.setattr(compare, "run_from_args", fail)
    assert cli.main(["compare", "x", "--base", "a", "--head", "b"]) == 3
    captured = capsys.readouterr()
    assert "failed with *** and ***" in captured.err
    assert "stdout line ***" in captured.out
    for text in (captured.out, captured.err):
        assert "cli_secret" not in text and "cli\\_secret" not in text
