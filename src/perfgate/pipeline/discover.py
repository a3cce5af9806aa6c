"""Which cases a run would measure, before measuring any (``asv run --bench just-discover``).

A shard (``perfgate gate --shard K/N``) must know every planned case to cut the same
partition as the other shards, on a runner whose checkout holds no earlier run. asv's
``just-discover`` imports the suites with a side's export on the path, writes their
``benchmarks.json`` and runs nothing. Both sides are discovered: a case that exists on one
side only (new or removed at head) is a planned case too.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from perfgate import asv_runner
from perfgate.errors import UserError
from perfgate.formats import asv_conf
from perfgate.formats.benchmarks_json import Suite, case_names, read_benchmarks
from perfgate.model import CaseKey, natural_key
from perfgate.pipeline.context import GateSettings

#: asv's ``--bench`` value that discovers the suites and saves benchmarks.json only.
JUST_DISCOVER = "just-discover"

Discoverer = Callable[[GateSettings, str, Path], Suite]
"""(settings, side, folder) -> the suite that side's export holds."""


def asv_discover(settings: GateSettings, side: str, folder: Path) -> Suite:
    """Run asv's discovery of ``side`` into ``folder`` and read the suite it saved."""
    sha = settings.base if side == "base" else settings.head
    source = settings.base_source if side == "base" else settings.head_source
    config = asv_conf.write_round_config(
        settings.asv_conf, folder, settings.benchmark_dir, settings.repo
    )
    inv = asv_runner.AsvInvocation(
        config=config,
        sha=sha,
        source=source,
        machine=settings.machine,
        bench=(JUST_DISCOVER,),
        prefix=settings.prefix,
        env={**settings.kernel_cache, **settings.env},
        timeout_s=settings.asv_timeout_s,
    )
    outcome = asv_runner.run_asv(inv, os.environ)
    (folder / "asv-output.txt").write_text(outcome.tail)
    if outcome.returncode != 0 or outcome.timed_out:
        raise UserError(
            f"asv could not discover the suites of {side} {sha[:12]} (exit "
            f"{outcome.returncode}); asv output (tail):\n{outcome.tail[-2000:]}"
        )
    return read_benchmarks(folder)


def discovered_names(settings: GateSettings, discover: Discoverer) -> dict[CaseKey, str]:
    """Case -> asv selection name over both sides' suites (base first, head wins)."""
    names: dict[CaseKey, str] = {}
    for side in ("base", "head"):
        names.update(case_names(discover(settings, side, settings.run_dir / f"discover-{side}")))
    return dict(sorted(names.items(), key=lambda item: natural_key(item[0])))
