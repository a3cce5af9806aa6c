"""`perfgate explain`: where one sim case's counts moved between two commits.

    perfgate explain --base A --head B CASE [--repo DIR] [--out DIR] [--figure F]

CASE is a sim case as the gate's report and verdict.json name it, e.g.
``sim_hot_slice.SimHotSlice.track_cycles(task=motion_tracking, profile=sac_default,
path=handwritten, num_envs=2048)``, or as asv does,
``sim_hot_slice.SimHotSlice.track_cycles( 'motion_tracking', 'sac_default', 'handwritten',
2048)`` (the ``.track_*`` part may be left out); the report prints the command for each case
it attributes. Both commits are exported and the case counted once on each side under
callgrind, as the gate counts it, with its per-function costs kept; nothing else runs (no
parity, no wall clock, no verdict). Prints the case's figures per call on both sides, where
the figure moved (functions beyond the base's sim tolerance, largest first, the caller whose
calls moved and the operation Python called; the Numba kernels that did not move), and for
each kernel the case ran whether its machine code changed and how (instructions, branches,
packed SIMD, vectorised loops, NRT allocations). Files go into ``--out`` (a new folder;
default ``.perfgate/explain/<base12>-<head12>``): ``explain.md``, ``flame.svg``,
``code/*.diff``, and ``base/`` / ``head/`` with the callgrind dumps (KCachegrind opens
them).

``--figure``: instructions (default, unless CASE names its figure), cycles, l1_misses,
ll_misses, or any callgrind event (Ir, D1mr, ...).

Exit codes: 0 printed; 3 error (a bad case name, an unknown commit, valgrind missing, the
case skipped or failing at a commit, an output folder that is not new).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from perfgate import git
from perfgate.sim.attribution import explain


def add_parser(subparsers: Any) -> None:
    """Register the ``explain`` subcommand."""
    p = subparsers.add_parser(
        "explain",
        help="where one sim case's counts moved between two commits (no gate run)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("case", metavar="CASE", help="the sim case, as the report or asv names it")
    p.add_argument("--base", required=True, help="base commit (its merge base with --head)")
    p.add_argument("--head", required=True, help="head commit")
    p.add_argument("--repo", default=".", help="the git repository (default: .)")
    p.add_argument("--out", help="a new folder for the files (see above)")
    p.add_argument("--figure", help="the figure to attribute (default: instructions)")
    p.set_defaults(func=run_from_args)


def run_from_args(args: argparse.Namespace) -> int:
    """Translate parsed arguments into `run`."""
    return run(args.case, args.base, args.head, args.repo, args.out, args.figure)


def run(
    case: str,
    base: str,
    head: str,
    repo: str = ".",
    out: str | None = None,
    figure: str | None = None,
    write: Callable[[str], None] = print,
) -> int:
    """Explain ``case`` between ``base`` and ``head``; print it; 0."""
    root = Path(repo).resolve()
    if out is None:
        pair = f"{git.resolve(root, base)[:12]}-{git.resolve(root, head)[:12]}"
        out = str(root / ".perfgate" / "explain" / pair)
    found = explain.explain(root, base, head, case, Path(out), figure)
    write(explain.render(found))
    return 0
