"""`perfgate` command line: argparse subcommands dispatched to `perfgate.commands`.

Each module in `COMMANDS` exposes ``add_parser(subparsers)``, which registers a subparser
and sets ``func(args) -> int``.

Exit codes: 0 PASS, 1 REGRESSION, 2 PARITY_FAILURE, 3 ERROR. Usage errors, `UserError` and any
unexpected exception all exit 3: the gate fails closed, and argparse's own exit code 2 would
otherwise be mistaken for a parity failure. (``perfgate history`` keeps its own contract:
0 success, 1 error, 2 usage; its parsers say so with ``usage_exit_code``.) Secrets of the
environment are redacted from everything written to stdout and stderr.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

from perfgate import __version__
from perfgate.errors import UserError
from perfgate.secrets import redacted_output
from perfgate.verdict import EXIT_ERROR

COMMANDS = (
    "init",
    "doctor",
    "compare",
    "gate",
    "merge",
    "calibrate",
    "post",
    "publish",
    "history",
    "watch",
    "parity_result",
    "explain",
)


class UsageError(UserError):
    """A command line argparse refused; ``exit_code`` is its parser's usage exit code."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose usage errors raise `UsageError` (exit 3 unless the parser's
    ``usage_exit_code`` says otherwise) instead of exiting 2."""

    usage_exit_code = EXIT_ERROR

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}", self.usage_exit_code)


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one subparser per command module."""
    parser = _Parser(
        prog="perfgate",
        description="CI performance gate over airspeed-velocity results.",
        epilog="Exit codes: 0 pass, 1 regression, 2 parity failure, 3 error.",
    )
    parser.add_argument("--version", action="version", version=f"perfgate {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module = importlib.import_module(f"perfgate.commands.{name}")
        module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run perfgate with *argv* (default: ``sys.argv[1:]``) and return the exit code.

    Everything the command writes to stdout and stderr (reports, messages, logs,
    tracebacks) has the secrets of the environment redacted (``secrets.redacted_output``).
    """
    with redacted_output(os.environ):
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        func = getattr(args, "func", None)
        if func is None:
            parser.print_help(sys.stderr)
            return EXIT_ERROR
        return int(func(args))
    except UsageError as exc:
        print(f"perfgate: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except UserError as exc:
        print(f"perfgate: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except SystemExit as exc:  # --help / --version exit 0; anything else is an error
        return 0 if exc.code in (0, None) else EXIT_ERROR
    except Exception:  # fail closed: an unexpected crash is an ERROR, never a pass
        traceback.print_exc()
        print("perfgate: internal error (exit 3)", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
