"""The probe's command line: the registry of items, running each (an item that raises is one
row saying why, and the others go on), printing the table and the count of rows ok; exit 0
only when every row is ok, 1 otherwise."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from . import __doc__ as PROBE_DOC
from .harness import Ctx, Row
from .items_errors import item_12, item_13, item_14
from .items_hostile import item_5, item_8
from .items_init import item_9, item_10, item_11
from .items_secrets import item_1, item_2, item_3, item_4
from .items_sim import item_6, item_7
from .table import table

ITEMS: dict[str, Callable[[Ctx], list[Row]]] = {
    "1": item_1, "2": item_2, "3": item_3, "4": item_4, "5": item_5, "6": item_6,
    "7": item_7, "8": item_8, "9": item_9, "10": item_10, "11": item_11, "12": item_12,
    "13": item_13, "14": item_14,
}  # fmt: skip


def run_item(name: str, ctx: Ctx) -> list[Row]:
    """One item's rows; an item that could not be run is one row saying why."""
    try:
        return ITEMS[name](ctx)
    except Exception as exc:  # the table says why; the other items go on
        return [Row(name, "-", "-", f"could not run: {type(exc).__name__}: {exc}"[:300], None)]


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line; --only checked against the items."""
    p = argparse.ArgumentParser(description=(PROBE_DOC or "").splitlines()[0])
    p.add_argument("--work", type=Path, default=Path("/tmp/perfgate-probe-holes"))
    p.add_argument("--python", default=sys.executable, help="the interpreter perfgate is in")
    p.add_argument("--only", default=",".join(ITEMS), help="comma-separated items, e.g. 1,5,12")
    args = p.parse_args(argv)
    args.only = [i.strip() for i in args.only.split(",") if i.strip()]
    unknown = [i for i in args.only if i not in ITEMS]
    if unknown:
        p.error(f"--only: unknown item(s) {unknown}; expected some of {', '.join(ITEMS)}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the chosen items, print the table; 0 only when every row is ok."""
    args = parse(argv)
    ctx = Ctx(args.work.resolve(), args.python)
    started = time.monotonic()
    rows: list[Row] = []
    for name in args.only:
        t0 = time.monotonic()
        mine = run_item(name, ctx)
        print(f"item {name}: {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
        rows += mine
    print(table(rows))
    good = sum(r.ok is True for r in rows)
    print(f"\n{good}/{len(rows)} rows ok; {(time.monotonic() - started) / 60:.1f} min")
    return 0 if good == len(rows) else 1
