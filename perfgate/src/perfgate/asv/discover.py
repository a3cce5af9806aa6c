"""Which cases a run would measure, before measuring any (``asv run --bench just-discover``).

A shard (``perfgate gate --shard K/N``) must know every planned case to cut the same
partition as the other shards, on a runner whose checkout holds no earlier run. asv's
``just-discover`` imports the suites with a side's export on the path, writes their
``benchmarks.json`` and runs nothing. Both sides are discovered: a case that exists on one
side only (new or removed at head) is a planned case too.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from perfgate.asv.side_run import run_side_asv
from perfgate.errors import UserError
from perfgate.formats.benchmarks_json import Suite, case_names, read_benchmarks
from perfgate.model import CaseKey, natural_key
from perfgate.settings import GateSettings

#: asv's ``--bench`` value that discovers the suites and saves benchmarks.json only.
JUST_DISCOVER = "just-discover"

Discoverer = Callable[[GateSettings, str, Path], Suite]
"""(settings, side, folder) -> the suite that side's export holds."""


def asv_discover(settings: GateSettings, side: str, folder: Path) -> Suite:
    """Run asv's discovery of ``side`` into ``folder`` and read the suite it saved."""
    sha, outcome = run_side_asv(settings, side, folder, (JUST_DISCOVER,))
    if outcome.returncode != 0 or outcome.timed_out:
        raise UserError(
            f"asv could not discover the suites of {side} {sha[:12]} (exit "
            f"{outcome.returncode}); asv output (tail):\n{outcome.tail[-2000:]}"
        )
    return read_benchmarks(folder)


#: Benchmark names a refused ``--bench`` regex is shown beside (the closest ones).
CLOSEST_NAMES = 3


def check_selection(names: Mapping[CaseKey, str], bench: Sequence[str]) -> None:
    """Refuse (`UserError`) ``--bench`` regexes that select none of the discovered cases
    (``names``: case -> asv name, as asv's ``--bench`` searches them), naming each with the
    discovered benchmarks closest to it: a selection of nothing would run parity and asv for
    nothing, and could only end in an error."""
    refused = []
    benchmarks = sorted({key.benchmark for key in names})
    for regex in bench:
        try:
            if any(re.search(regex, name) for name in names.values()):
                continue
        except re.error as exc:
            raise UserError(f"--bench {regex!r}: not a regular expression ({exc})") from None
        plain = re.sub(r"[\^$\\]", "", regex)
        closest = difflib.get_close_matches(plain, benchmarks, CLOSEST_NAMES, cutoff=0.0)
        refused.append(
            f"--bench {regex!r} selects none of the {len(benchmarks)} benchmark(s) discovered "
            f"at base and head (closest: {', '.join(closest) or 'none'})"
        )
    if refused:
        raise UserError("; ".join(refused) + "; parity and measuring were not run")


def discovered_names(settings: GateSettings, discover: Discoverer) -> dict[CaseKey, str]:
    """Case -> asv selection name over both sides' suites (base first, head wins)."""
    names: dict[CaseKey, str] = {}
    for side in ("base", "head"):
        names.update(case_names(discover(settings, side, settings.run_dir / f"discover-{side}")))
    return dict(sorted(names.items(), key=lambda item: natural_key(item[0])))
