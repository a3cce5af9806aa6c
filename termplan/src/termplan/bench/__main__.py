"""Entry point of ``python -m termplan.bench``: dispatch to a command, print JSON or a table.

Exit codes: 0 on success, 2 on bad options (unknown task, path, profile, N ...).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from termplan.bench import hot

#: Command modules; each has ``add_parser(subparsers)`` and sets ``func`` on its parser.
COMMANDS = [hot]


def _load_optional_commands() -> None:
    """Commands whose modules may be absent in older checkouts are added when importable."""
    import importlib

    for name in ("roofline", "collector", "compile_time"):
        try:
            module = importlib.import_module(f"termplan.bench.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"termplan.bench.{name}":
                raise
            continue
        if module not in COMMANDS:
            COMMANDS.append(module)


def _format_table(records: list[dict[str, Any]]) -> str:
    if not records:
        return "(no records)"
    keys = [k for k in records[0] if not isinstance(records[0][k], (dict, list))]
    rows = [[_fmt(r.get(k)) for k in keys] for r in records]
    widths = [max(len(k), *(len(row[i]) for row in rows)) for i, k in enumerate(keys)]
    lines = ["  ".join(k.ljust(w) for k, w in zip(keys, widths, strict=True))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    return "\n".join(lines)


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, run the command and print its records; return the exit code."""
    _load_optional_commands()
    parser = argparse.ArgumentParser(prog="python -m termplan.bench", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
        module.add_parser(sub)
    args = parser.parse_args(argv)
    try:
        records = args.func(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except MemoryError:
        print("error: not enough memory for the requested sizes (--num-envs)", file=sys.stderr)
        return 2
    if getattr(args, "json", False):
        print(json.dumps(records, indent=2))
    else:
        print(_format_table(records if isinstance(records, list) else [records]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
