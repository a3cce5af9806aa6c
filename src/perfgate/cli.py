"""`perfgate` command line: argparse subcommands dispatched to command modules.

Each command module in `COMMAND_MODULES` exposes ``add_parser(subparsers)`` which registers a
subparser and sets ``func(args) -> int``. Modules that do not exist yet are skipped
(`importlib.util.find_spec`), so commands can be developed in parallel.

Exit codes: 0 PASS, 1 REGRESSION, 2 PARITY_FAILURE, 3 ERROR. Usage errors, `UserError` and any
unexpected exception all exit 3: the gate fails closed, and argparse's own exit code 2 would
otherwise be mistaken for a parity failure.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

from perfgate import __version__
from perfgate.errors import UserError

COMMAND_MODULES = ("compare_cmd", "gate_cmd", "calibrate_cmd", "post_cmd", "publish_cmd")
EXIT_ERROR = 3


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose usage errors raise `UserError` (exit 3) instead of exiting 2."""

    def error(self, message: str) -> NoReturn:
        raise UserError(f"{self.prog}: {message}")


def available_commands() -> list[str]:
    """The command modules that exist in this installation."""
    return [m for m in COMMAND_MODULES if importlib.util.find_spec(f"perfgate.{m}") is not None]


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one subparser per available command module."""
    parser = _Parser(
        prog="perfgate",
        description="CI performance gate over airspeed-velocity results.",
        epilog="Exit codes: 0 pass, 1 regression, 2 parity failure, 3 error.",
    )
    parser.add_argument("--version", action="version", version=f"perfgate {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in available_commands():
        module = importlib.import_module(f"perfgate.{name}")
        module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run perfgate with *argv* (default: ``sys.argv[1:]``) and return the exit code."""
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        func = getattr(args, "func", None)
        if func is None:
            parser.print_help(sys.stderr)
            return EXIT_ERROR
        return int(func(args))
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
