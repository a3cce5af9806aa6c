"""The I/O seams of a measuring run that tests replace: the asv side runner, asv's suite
discovery (shards), the machine fingerprint, asv's machine registration and where output
goes."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from perfgate import machine
from perfgate.asv import runner as asv_runner
from perfgate.asv.discover import Discoverer, asv_discover
from perfgate.asv.side_run import SideRunner, asv_side, run_sides_together
from perfgate.sim import callgrind
from perfgate.sim.phase import SimRunner


@dataclass(frozen=True)
class Hooks:
    """The I/O seams tests replace: asv side runner, fingerprint, asv machine, output."""

    side_runner: SideRunner = asv_side
    #: the sim instrument's runs, all at once (`perfgate.sim.phase`)
    sim_runner: SimRunner = run_sides_together
    #: valgrind's installed version, None where it is not installed (which instruments run)
    valgrind: Callable[[], str | None] = callgrind.installed_version
    discover: Discoverer = asv_discover
    fingerprint: Callable[[machine.PinPlan], machine.Fingerprint] = field(
        default=lambda plan: machine.collect_fingerprint(plan=plan, window=0.5)
    )
    register_machine: Callable[[str], None] = field(
        default=lambda name: asv_runner.ensure_asv_machine(name, os.environ)
    )
    write: Callable[[str], None] = print
    log: Callable[[str], None] = field(
        default=lambda text: print(f"perfgate gate: {text}", file=sys.stderr, flush=True)
    )
