"""Running a child process for the gate: no secrets in, none out, a time-out is reported,
nothing left running."""

from __future__ import annotations

import logging
import os
import shlex
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from perfgate import containment
from perfgate.errors import RunnerError
from perfgate.secrets import Redactor, child_environment

#: How much of a child's combined output is kept (after redaction).
TAIL_CHARS = 8000
TIMEOUT_TAIL_CHARS = 4000
#: Seconds between two looks at a watched child's new output.
WATCH_EVERY_S = 2.0
LOG = logging.getLogger(__name__)
#: Called with a child's new output (redacted) while it runs.
Watch = Callable[[str], None]


@dataclass(frozen=True)
class ProcessOutcome:
    """Exit code and the last part of the combined output of a child process, and the
    processes it left running (killed: see `perfgate.containment`)."""

    returncode: int
    tail: str
    timed_out: bool = False
    stragglers: tuple[containment.Straggler, ...] = ()


def run_process(
    cmd: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    timeout_s: float,
    watch: Watch | None = None,
) -> ProcessOutcome:
    """Run ``cmd``; a time-out kills it and is reported, never raised as success.

    Nothing the child starts outlives it (``perfgate.containment``): the child runs in a
    session of its own; a process it detaches is killed as soon as it is seen (within
    `containment.ESCAPE_CHECK_S`: one holding the pipes a child of the child reads to their
    end would hold the child up as long as it lives), and once the child has exited (or
    timed out) its process group and every process it detached or marked are killed before
    this returns, so no code of the head can rewrite the run directory or the report later.
    Such stragglers are logged as suspicious, with their command lines, redacted.

    The child gets the allow-listed part of ``env`` (``secrets.child_environment``: no
    child of the gate needs a credential), and the secrets of ``env`` are redacted from its
    whole output before the tail is cut, since output tails end up in reports that may be
    posted (cutting first could leave a secret's suffix). ``watch``, when given, gets the
    child's new output (stdout, then stderr, redacted) every `WATCH_EVERY_S` seconds while
    it runs, for progress lines.
    """
    redactor = Redactor.from_env(env)
    return _run(cmd, cwd, env, timeout_s, redactor, watch)


@dataclass(frozen=True)
class Job:
    """One command of `run_processes`, with what `run_process` takes."""

    cmd: Sequence[str]
    cwd: Path
    env: Mapping[str, str]
    timeout_s: float


def run_processes(jobs: Sequence[Job]) -> list[ProcessOutcome]:
    """Run ``jobs`` at the same time, each as `run_process` would, outcomes in order.

    While they run, what any of them detaches is killed as soon as it is seen (one
    `containment.EscapeWatch` knows every job). The final sweep is done once every job has
    exited (or timed out): a job's sweep kills every child of this process it does not know,
    so sweeping one job while another still runs would kill the other. Each straggler is
    named in the outcome of the job whose marker it carries (else of the job whose sweep
    found it; the first job for one killed while they ran).
    """
    if not jobs:
        return []
    redactors = [Redactor.from_env(job.env) for job in jobs]
    markers = [containment.new_marker() for _ in jobs]
    containment.enable_subreaper()
    with ExitStack() as stack:
        files = [
            (
                stack.enter_context(tempfile.TemporaryFile()),
                stack.enter_context(tempfile.TemporaryFile()),
            )
            for _ in jobs
        ]
        before = containment.children()
        watch = containment.EscapeWatch(before)
        procs: list[subprocess.Popen[bytes]] = []
        try:
            for job, (out, err), redactor, marker in zip(
                jobs, files, redactors, markers, strict=True
            ):
                env = _marked(job.env, marker)
                procs.append(_start(job.cmd, job.cwd, env, (out, err), redactor))
                watch.started(procs[-1].pid)
            timed_out = _wait_all(procs, [job.timeout_s for job in jobs], watch)
        finally:
            for proc in procs:
                containment.kill_group(proc.pid)
                proc.wait()
            swept = [
                containment.sweep(proc.pid, before, marker)
                for proc, marker in zip(procs, markers, strict=False)
            ]
        outcomes = []
        found = _attributed(markers, [(*watch.killed, *swept[0]), *swept[1:]])
        for job, proc, (out, err), redactor, late, stragglers in zip(
            jobs, procs, files, redactors, timed_out, found, strict=True
        ):
            _log_stragglers(job.cmd, stragglers, redactor)
            outcomes.append(
                _outcome(proc.returncode, late, _read(out), _read(err), redactor, stragglers)
            )
    return outcomes


def _marked(env: Mapping[str, str], marker: str) -> dict[str, str]:
    """The allow-listed part of ``env`` with the command's `containment.MARKER`."""
    return {**child_environment(env), containment.MARKER: marker}


def _attributed(
    markers: Sequence[str], found: Sequence[Sequence[containment.Straggler]]
) -> list[tuple[containment.Straggler, ...]]:
    """The stragglers of each job: those carrying its marker, and those ``found`` for it
    that carry no job's marker (a process that cleared its environment)."""
    every = [s for stragglers in found for s in stragglers]
    out = []
    for marker, own in zip(markers, found, strict=True):
        mine = [s for s in every if s.marker == marker]
        mine += [s for s in own if s.marker not in markers]
        out.append(tuple(mine))
    return out


def _start(
    cmd: Sequence[str],
    cwd: Path,
    env: dict[str, str],
    files: tuple[IO[bytes], IO[bytes]],
    redactor: Redactor,
) -> subprocess.Popen[bytes]:
    """Start ``cmd`` in a session of its own, output into ``files``."""
    try:
        return subprocess.Popen(
            list(cmd), cwd=cwd, env=env, stdout=files[0], stderr=files[1], start_new_session=True
        )
    except OSError as exc:
        raise RunnerError(redactor.text(f"cannot start {cmd[0]}: {exc}")) from None


def _wait_all(
    procs: Sequence[subprocess.Popen[bytes]],
    timeouts: Sequence[float],
    watch: containment.EscapeWatch,
) -> list[bool]:
    """Wait for every process, each against its own time-out from now (a late one's group is
    killed at once), ``watch`` killing what they detach meanwhile; which ones timed out.
    Nothing is reaped."""
    start = time.monotonic()
    late = []
    for proc, timeout_s in zip(procs, timeouts, strict=True):
        remaining = max(0.0, timeout_s - (time.monotonic() - start))
        exited = containment.wait_exited(proc.pid, remaining, watch)
        if not exited:
            containment.kill_group(proc.pid)
            containment.wait_exited(proc.pid, 60.0, watch)
        late.append(not exited)
    return late


def _outcome(
    returncode: int | None,
    timed_out: bool,
    stdout: str,
    stderr: str,
    redactor: Redactor,
    stragglers: tuple[containment.Straggler, ...],
) -> ProcessOutcome:
    """What a finished child left: its code and output tail, redacted before cutting."""
    if timed_out:
        return ProcessOutcome(
            -9, redactor.text(stdout)[-TIMEOUT_TAIL_CHARS:], timed_out=True, stragglers=stragglers
        )
    code = -9 if returncode is None else returncode
    return ProcessOutcome(
        code, redactor.text(stdout + stderr)[-TAIL_CHARS:], stragglers=stragglers
    )


def _run(
    cmd: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    timeout_s: float,
    redactor: Redactor,
    watch: Watch | None = None,
) -> ProcessOutcome:
    containment.enable_subreaper()
    # files, not pipes: a detached grandchild holding a pipe open would block reading it
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        before = containment.children()
        marker = containment.new_marker()
        proc = _start(cmd, cwd, _marked(env, marker), (out, err), redactor)
        reader = _Reader(out, err, redactor, watch)
        timed_out, stragglers = _wait_contained(proc, timeout_s, (before, marker), reader)
        _log_stragglers(cmd, stragglers, redactor)
        stdout, stderr = _read(out), _read(err)
    return _outcome(proc.returncode, timed_out, stdout, stderr, redactor, stragglers)


class _Reader:
    """Hands a watcher what a child wrote to its output files since the last look."""

    def __init__(self, out: IO[bytes], err: IO[bytes], redactor: Redactor, watch: Watch | None):
        self.files = (out, err)
        self.offsets = [0, 0]
        self.redactor = redactor
        self.watch = watch

    def look(self) -> None:
        if self.watch is None:
            return
        chunks = []
        for i, file in enumerate(self.files):
            size = os.fstat(file.fileno()).st_size
            if size > self.offsets[i]:
                chunks.append(os.pread(file.fileno(), size - self.offsets[i], self.offsets[i]))
                self.offsets[i] = size
        if chunks:
            text = b"".join(chunks).decode(errors="replace")
            self.watch(self.redactor.text(text))


def _wait_watched(
    pid: int, timeout_s: float, reader: _Reader, escapes: containment.EscapeWatch
) -> bool:
    """`containment.wait_exited`, with a look at the output every `WATCH_EVERY_S`."""
    if reader.watch is None:
        return containment.wait_exited(pid, timeout_s, escapes)
    deadline = time.monotonic() + timeout_s
    while True:
        left = deadline - time.monotonic()
        if containment.wait_exited(pid, max(0.0, min(WATCH_EVERY_S, left)), escapes):
            reader.look()
            return True
        reader.look()
        if left <= WATCH_EVERY_S:
            return False


def _wait_contained(
    proc: subprocess.Popen[bytes],
    timeout_s: float,
    known: tuple[frozenset[int], str],
    reader: _Reader,
) -> tuple[bool, tuple[containment.Straggler, ...]]:
    """Wait for ``proc`` (killing what it detaches meanwhile, and its group at the
    time-out), then kill everything it left behind; ``known``: the children this process
    had before, and ``proc``'s marker. (Timed out, the processes that were still running.)"""
    before, marker = known
    escapes = containment.EscapeWatch(before)
    escapes.started(proc.pid)
    try:
        timed_out = not _wait_watched(proc.pid, timeout_s, reader, escapes)
    finally:  # interrupted too: still leave nothing running
        # its process group is killed while the exited leader still holds the group's id
        containment.kill_group(proc.pid)
        proc.wait()
        late = containment.sweep(proc.pid, before, marker)
    return timed_out, (*escapes.killed, *late)


def _log_stragglers(
    cmd: Sequence[str], stragglers: Sequence[containment.Straggler], redactor: Redactor
) -> None:
    if stragglers:
        LOG.warning(
            "perfgate: killed %d process(es) detached from %s (still running after it, or "
            "the process that started them, had returned: suspicious): %s",
            len(stragglers),
            redactor.text(shlex.join(cmd))[:200],
            ", ".join(redactor.text(str(s)) for s in stragglers),
        )


def _read(file: IO[bytes]) -> str:
    file.seek(0)
    return file.read().decode(errors="replace")
