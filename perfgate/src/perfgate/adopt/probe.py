"""One run of the selected benchmarks at HEAD, before any gate: what each costs, which are
broken (``perfgate init``, ``perfgate doctor --run``).

The run is the quick gate's own first round, one side of it: HEAD exported (and built when
the policy says ``build = "pip"``) into a run folder of its own, asv run once over the
quick gate's selection with the gate's machine, environment and time-out
(`perfgate.asv.side_run`), its progress printed as asv reports each benchmark. What it
gives (`Probe`): each benchmark's seconds (asv's durations, all its parameter combinations),
asv's own seconds beyond them, and the benchmarks that failed with asv's error
(`perfgate.formats.asv_output`, redacted). `perfgate.adopt.quick` turns that into a quick
selection and a budget.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from perfgate.asv import runner as asv_runner
from perfgate.asv import side_run
from perfgate.config import GateConfig
from perfgate.formats import asv_output
from perfgate.gate import context, sides
from perfgate.gate.hooks import Hooks
from perfgate.process import run_process
from perfgate.secrets import Redactor
from perfgate.settings import GateOptions, GateSettings

Log = Callable[[str], None]


@dataclass(frozen=True)
class Probe:
    """What one run of the suite at HEAD showed (seconds are one side's)."""

    #: benchmark -> seconds of its run (all its parameter combinations), working ones only
    seconds: dict[str, float]
    #: benchmark -> asv's account of why it failed (some or all of its cases)
    broken: dict[str, str]
    #: asv's own seconds of the run beyond its benchmarks (start-up, discovery, imports)
    overhead_s: float
    machine: str
    sha: str = ""

    @property
    def count(self) -> int:
        """How many benchmarks ran (working and broken)."""
        return len(self.seconds) + len(self.broken)


Prober = Callable[[Path, GateConfig, int], Probe]
"""(repository root, the policy, how many benchmarks asv discovered) -> the run's `Probe`."""


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


_DONE = re.compile(rf"^\[\s*\d+(?:\.\d+)?%\] ··· ({asv_output.NAME})\s+(\S.*)$", re.M)


class _Progress:
    """Collects asv's whole output as it comes and prints one line per finished benchmark
    (``[k/N] name status``): a suite's first run can take minutes."""

    def __init__(self, total: int, log: Log) -> None:
        self.total, self.log = total, log
        self.text = ""
        self.seen: set[str] = set()

    def __call__(self, chunk: str) -> None:
        self.text += chunk
        for found in _DONE.finditer(self.text):
            name, status = found.group(1), found.group(2).strip()
            if name not in self.seen:
                self.seen.add(name)
                count = f"{len(self.seen)}/{self.total}" if self.total else str(len(self.seen))
                self.log(f"  [{count}] {name} {status[:40]}")


def run_probe(root: Path, config: GateConfig, total: int = 0, log: Log = _stderr) -> Probe:
    """Run the quick gate's selection once at HEAD of ``root`` under ``config`` (a run folder
    in a temporary work folder, removed afterwards); ``total``: how many benchmarks asv
    discovered (for the progress lines)."""
    hooks = Hooks()
    with tempfile.TemporaryDirectory(prefix="perfgate-probe-") as work:
        opts = GateOptions(base="HEAD", head="HEAD", repo=root, quick=True, work_dir=Path(work))
        revs = context.resolve_revisions(opts)
        _pin, _fp, s = context.settings_on_this_machine(opts, revs, config, hooks.fingerprint)
        try:
            with sides.prepared(s) as s:
                hooks.register_machine(s.machine)
                return _run(s, total, log)
        finally:
            shutil.rmtree(s.run_dir, ignore_errors=True)


def _run(s: GateSettings, total: int, log: Log) -> Probe:
    folder = s.run_dir / "probe-head"
    folder.mkdir(parents=True, exist_ok=True)
    inv = side_run.side_invocation(s, "head", folder, s.bench)
    progress = _Progress(total, log)
    log(f"perfgate: running the selected benchmarks once at HEAD {inv.sha[:12]} (asv)...")
    started = time.monotonic()
    env = asv_runner.asv_environment(inv, os.environ)
    outcome = run_process(
        asv_runner.asv_command(inv), inv.config.parent, env, inv.timeout_s, progress
    )
    wall = time.monotonic() - started
    whole = Redactor.from_env(os.environ).text(progress.text) or outcome.tail
    (folder / asv_output.OUTPUT_FILE).write_text(whole)
    if outcome.timed_out:
        raise side_run.GateError(f"asv timed out after {inv.timeout_s:.0f}s running the suite")
    ran = side_run.read_side(folder, s.machine, inv.sha, outcome)
    texts = asv_output.failure_texts(whole, {k.benchmark for k in ran.samples})
    return summarize(ran, texts, wall, s.machine, inv.sha)


def summarize(
    ran: side_run.SideRun, texts: dict[str, str], wall_s: float, machine: str, sha: str = ""
) -> Probe:
    """A `Probe` from one side's run: a benchmark with a failed case is broken (its error
    from ``texts``, redacted here too), the others cost their asv durations; a module's
    ``setup_cache`` phase is kept under asv's name for it (``<setup_cache mod:12>``)."""
    redact = Redactor.from_env(os.environ).text
    failed = sorted({k.benchmark for k, v in ran.samples.items() if v is None})
    broken = {b: redact(texts.get(b, "failed (asv printed no error text)")) for b in failed}
    names = {k.benchmark for k in ran.samples} - set(broken)
    seconds = {
        b: float(d)
        for b, d in sorted(ran.durations.items())
        if b in names or b.startswith("<setup_cache ")
    }
    spent = sum(ran.durations.values())
    return Probe(seconds, broken, max(0.0, wall_s - spent), machine, sha)
