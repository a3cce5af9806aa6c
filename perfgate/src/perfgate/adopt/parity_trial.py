"""One run of each parity command ``perfgate init`` is about to write (``perfgate doctor``
runs the quick one too), on HEAD as the gate will run it: HEAD exported (and built, when
the policy says ``build = "pip"``) into a run folder of its own, the command run in that
export by the gate's own parity runner (`perfgate.gate.parity`: the one process runner,
the child allow-list environment, a time limit), its seconds and, when it did not pass,
its own last lines (redacted). Init writes only a command it saw pass
(`perfgate.adopt.policy`); the time is the plan's parity estimate
(``[tool.perfgate.costs] parity_s``)."""

from __future__ import annotations

import enum
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from perfgate.config import GateConfig
from perfgate.errors import RunnerError
from perfgate.gate import context, parity, sides
from perfgate.gate.hooks import Hooks
from perfgate.secrets import Redactor
from perfgate.settings import GateOptions, GateSettings

#: Seconds each command may run in ``perfgate init`` (``--parity-minutes``) and in
#: ``perfgate doctor``: a longer one is stopped and not written.
DEFAULT_LIMIT_S = 600.0
#: How many of a failing command's last lines are shown and written into the policy.
ERROR_LINES = 8


class TrialOutcome(enum.Enum):
    """How one run of a parity command ended."""

    PASSED = "passed"
    FAILED = "failed"
    TIMED_OUT = "timed out"


@dataclass(frozen=True)
class Trial:
    """One run of a parity command at HEAD."""

    command: tuple[str, ...]
    outcome: TrialOutcome
    seconds: float
    limit_s: float
    #: the exit code (-9: stopped at the limit, or it could not start)
    returncode: int = 0
    #: its own last lines, redacted ("" when it passed)
    error: str = ""
    sha: str = ""

    @property
    def passed(self) -> bool:
        """True when it exited 0 within its limit."""
        return self.outcome is TrialOutcome.PASSED

    def summary(self) -> str:
        """One line: how it ended and how long it took."""
        if self.outcome is TrialOutcome.PASSED:
            return f"passed in {self.seconds:.1f} s"
        if self.outcome is TrialOutcome.TIMED_OUT:
            return f"did not finish within the limit of {self.limit_s / 60:g} min (stopped)"
        return f"failed (exit {self.returncode}) in {self.seconds:.1f} s"


Trier = Callable[[Path, GateConfig, Sequence[tuple[str, ...]], float], list[Trial]]
"""(repository root, the policy, the commands, seconds each may run) -> one `Trial` each."""


#: pytest's banner lines ("==== short test summary info ====", "!!!! Interrupted ... !!!!"):
#: they say nothing of the error, and would take its place among the last lines.
_BANNER = re.compile(r"^\s*([=!_-])\1{2,}.*\1{3}\s*$")


def last_lines(text: str, count: int = ERROR_LINES) -> str:
    """The last ``count`` non-blank lines of ``text`` that are not pytest's banners,
    redacted, control characters shown as '?' (they go into a TOML comment), each at most
    200 characters."""
    redacted = Redactor.from_env(os.environ).text(text)
    lines = [x.rstrip() for x in redacted.splitlines() if x.strip() and not _BANNER.match(x)]
    clean = ["".join(c if c == "\t" or ord(c) >= 32 else "?" for c in x) for x in lines]
    return "\n".join(line[:200] for line in clean[-count:])


def _trial(s: GateSettings, command: tuple[str, ...], limit_s: float) -> Trial:
    """Run ``command`` once in the head export, as the gate's parity stage runs it."""
    started = time.monotonic()
    try:
        env = parity.parity_environment(s, s.run_dir / "parity-progress.jsonl")
        roots = s.import_roots("head", parity=True)
        run = parity.run_in_export(
            parity.resolve_command(command), s.head_source, env, limit_s, roots
        )
    except RunnerError as exc:
        seconds = time.monotonic() - started
        return Trial(command, TrialOutcome.FAILED, seconds, limit_s, -9, last_lines(str(exc)))
    seconds = time.monotonic() - started
    if run.timed_out:
        outcome = TrialOutcome.TIMED_OUT
    else:
        outcome = TrialOutcome.PASSED if run.passed else TrialOutcome.FAILED
    error = "" if outcome is TrialOutcome.PASSED else last_lines(run.tail)
    return Trial(command, outcome, seconds, limit_s, run.returncode, error, s.head)


def run_trials(
    root: Path, config: GateConfig, commands: Sequence[tuple[str, ...]], limit_s: float
) -> list[Trial]:
    """Run each of ``commands`` once at HEAD of ``root`` under ``config`` (one export, in
    a temporary work folder removed afterwards), each stopped after ``limit_s``."""
    hooks = Hooks()
    with tempfile.TemporaryDirectory(prefix="perfgate-parity-") as work:
        opts = GateOptions(base="HEAD", head="HEAD", repo=root, quick=True, work_dir=Path(work))
        revs = context.resolve_revisions(opts)
        _pin, _fp, s = context.settings_on_this_machine(opts, revs, config, hooks.fingerprint)
        try:
            with sides.prepared(s) as s:
                return [_trial(s, tuple(c), limit_s) for c in commands]
        finally:
            shutil.rmtree(s.run_dir, ignore_errors=True)
