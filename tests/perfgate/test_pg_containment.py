"""perfgate.containment through run_process: nothing a child starts outlives it.

Code of the pull request runs in the gate's children; a process it detaches (double fork,
setsid) must not live on to rewrite the report or the run directory after the gate has
written them, nor hold the child's output open so that the gate hangs.
"""

from __future__ import annotations

import ctypes
import logging
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from perfgate import containment
from perfgate.process import Job, run_process, run_processes

pytestmark = pytest.mark.subprocess

ENV = {"PATH": "/usr/bin:/bin"}
PR_GET_CHILD_SUBREAPER = 37  # linux/prctl.h

#: Double fork with setsid: the grandchild sleeps in a session of its own, then writes.
DETACH = textwrap.dedent(
    """
    import os, sys, time
    pidfile, target, delay = sys.argv[1], sys.argv[2], float(sys.argv[3])
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            with open(pidfile + ".tmp", "w") as f:
                f.write(str(os.getpid()))
            os.rename(pidfile + ".tmp", pidfile)
            time.sleep(delay)
            with open(target, "w") as f:
                f.write("rewritten after the gate")
            os._exit(0)
        os._exit(0)
    os.wait()
    while not os.path.exists(pidfile):
        time.sleep(0.01)
    print("benchmark done")
    """
)


def _alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def test_a_detached_sleeper_is_killed_before_run_process_returns(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The double-forked, setsid'd grandchild is dead when run_process returns, and the file
    it would have written later never appears; the kill is logged as suspicious."""
    pidfile, target = tmp_path / "sleeper.pid", tmp_path / "verdict.json"
    cmd = [sys.executable, "-c", DETACH, str(pidfile), str(target), "1.5"]
    with caplog.at_level(logging.WARNING):
        outcome = run_process(cmd, tmp_path, ENV, 60.0)
    assert outcome.returncode == 0 and "benchmark done" in outcome.tail
    sleeper = int(pidfile.read_text())
    assert not _alive(sleeper)
    assert [s.pid for s in outcome.stragglers] == [sleeper]
    assert sleeper in [s.pid for s in containment.killed()]
    assert f"pid {sleeper}" in caplog.text and "suspicious" in caplog.text
    time.sleep(2.5)  # past the moment the sleeper would have written
    assert not target.exists()


def test_a_grandchild_holding_the_output_open_does_not_hang(tmp_path: Path) -> None:
    """A detached grandchild that keeps the child's stdout and stderr open (and would sleep
    for a minute) neither delays run_process nor survives it."""
    script = (
        "import subprocess, sys; "
        "p = subprocess.Popen(['sleep', '60'], start_new_session=True); "
        "print('child', p.pid, flush=True)"
    )
    started = time.monotonic()
    outcome = run_process([sys.executable, "-c", script], tmp_path, ENV, 120.0)
    assert time.monotonic() - started < 20.0
    assert outcome.returncode == 0 and not outcome.timed_out
    grandchild = int(outcome.tail.split()[-1])
    assert not _alive(grandchild)
    assert [s.pid for s in outcome.stragglers] == [grandchild]


#: asv's way with a benchmark process: its output through pipes, read to their end after it
#: exited. The benchmark detaches a sleeper (``setsid sh -c 'sleep 417 &'``) that inherits
#: the pipes, so the read waits as long as the sleeper lives (issue 37, 5).
ASV_LIKE = textwrap.dedent(
    """
    import subprocess, sys
    pidfile, secret = sys.argv[1], sys.argv[2]
    inner = f"(sleep 417; : {secret}) & echo $! > {pidfile}.tmp; mv {pidfile}.tmp {pidfile}"
    bench = subprocess.Popen(
        ["sh", "-c", f"setsid sh -c '{inner}'; echo benchmark done"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    bench.wait()
    print(bench.stdout.read().decode().strip(), "read to the end", flush=True)
    """
)
TOKEN = "ghp_" + "s3cr3t" * 6


def _asv_like(tmp_path: Path) -> tuple[list[str], Path]:
    pidfile = tmp_path / "sleeper.pid"
    return [sys.executable, "-c", ASV_LIKE, str(pidfile), TOKEN], pidfile


def test_a_detached_sleeper_holding_a_pipe_read_to_its_end_is_killed_while_the_child_runs(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The sleeper is killed as soon as it is orphaned, not once the child returns (which
    it would do only when the sleeper ends: the gate waited 417 s): the child reads its
    benchmark's output to the end within seconds, and the kill is named with its command
    line, redacted, in the log and in the report's note."""
    cmd, pidfile = _asv_like(tmp_path)
    since = len(containment.killed())
    started = time.monotonic()
    with caplog.at_level(logging.WARNING):
        outcome = run_process(cmd, tmp_path, {**ENV, "GITHUB_TOKEN": TOKEN}, 10.0)
    assert time.monotonic() - started < 8.0
    assert not outcome.timed_out and outcome.returncode == 0
    assert "benchmark done read to the end" in outcome.tail
    sleeper = int(pidfile.read_text())  # the subshell, whose child sleeps
    assert not _alive(sleeper)
    commands = {s.pid: s.command for s in outcome.stragglers}
    assert TOKEN in commands[sleeper] and "sleep 417" in commands[sleeper]
    assert "sleep 417" in commands.values()
    assert f"pid {sleeper} (sh -c" in caplog.text and "(sleep 417)" in caplog.text
    assert TOKEN not in caplog.text
    (note,) = containment.killed_note(since)
    assert f"pid {sleeper} (sh -c" in note and "(sleep 417)" in note and "suspicious" in note


def test_jobs_detaching_sleepers_are_each_named_by_their_own_marker(tmp_path: Path) -> None:
    """run_processes: the sleeper of the second job (killed while both run) is named in the
    second job's outcome, by the marker in its environment, not in the first's."""
    cmd, pidfile = _asv_like(tmp_path)
    slow = [sys.executable, "-c", "import time; time.sleep(1.0); print('slow done')"]
    started = time.monotonic()
    first, second = run_processes([Job(slow, tmp_path, ENV, 10.0), Job(cmd, tmp_path, ENV, 10.0)])
    assert time.monotonic() - started < 8.0
    assert first.returncode == 0 and first.stragglers == ()
    assert second.returncode == 0 and "read to the end" in second.tail
    sleeper = int(pidfile.read_text())
    assert not _alive(sleeper)
    assert sleeper in [s.pid for s in second.stragglers]


def test_a_time_out_is_still_reported_and_leaves_nothing_running(tmp_path: Path) -> None:
    """A child that runs past its time-out is killed with its detached descendants, and the
    outcome says it timed out, with the output it wrote so far."""
    pidfile, target = tmp_path / "sleeper.pid", tmp_path / "late.txt"
    script = DETACH.replace(
        'print("benchmark done")', 'print("started", flush=True)\ntime.sleep(60)'
    )
    cmd = [sys.executable, "-c", script, str(pidfile), str(target), "60"]
    started = time.monotonic()
    outcome = run_process(cmd, tmp_path, ENV, 3.0)
    assert time.monotonic() - started < 30.0
    assert outcome.timed_out and outcome.returncode == -9
    assert "started" in outcome.tail
    assert not _alive(int(pidfile.read_text()))


def test_the_exit_code_is_kept_and_other_children_are_left_alone(tmp_path: Path) -> None:
    """Only what the command left behind is killed: a process this one started before is
    not; the command's own exit code is returned unchanged."""
    bystander = subprocess.Popen(["sleep", "60"])
    try:
        outcome = run_process([sys.executable, "-c", "raise SystemExit(3)"], tmp_path, ENV, 60.0)
        assert outcome.returncode == 3 and outcome.stragglers == ()
        assert bystander.poll() is None and _alive(bystander.pid)
    finally:
        bystander.kill()
        bystander.wait()


def test_the_gate_becomes_a_child_subreaper_on_linux() -> None:
    """Orphans of the gate's children are re-parented to the gate, where they can be found
    (``prctl(PR_GET_CHILD_SUBREAPER)`` reads the flag back)."""
    assert containment.enable_subreaper() is sys.platform.startswith("linux")
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        flag = ctypes.c_int(0)
        assert libc.prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0) == 0
        assert flag.value == 1


def test_jobs_run_together_and_no_job_takes_another_for_a_straggler(tmp_path: Path) -> None:
    """run_processes: a short job ends while a long one still runs; the long one is not
    killed as the short one's straggler, both outcomes come back in order, and the short
    job's detached sleeper is killed and named before it returns."""
    pidfile, target = tmp_path / "sleeper.pid", tmp_path / "late.txt"
    detach = [sys.executable, "-c", DETACH, str(pidfile), str(target), "60"]
    slow = [sys.executable, "-c", "import time; time.sleep(1.5); print('slow done')"]
    started = time.monotonic()
    short, long = run_processes([Job(detach, tmp_path, ENV, 60.0), Job(slow, tmp_path, ENV, 60.0)])
    assert time.monotonic() - started < 30.0
    assert short.returncode == 0 and "benchmark done" in short.tail
    assert long.returncode == 0 and "slow done" in long.tail and long.stragglers == ()
    sleeper = int(pidfile.read_text())
    assert not _alive(sleeper)
    assert [s.pid for s in short.stragglers] == [sleeper]


def test_a_job_past_its_time_out_is_killed_and_the_others_finish(tmp_path: Path) -> None:
    """Each job has its own time-out: a late one is reported as such, killed with what it
    started, and a job that finishes in time keeps its exit code."""
    late = [sys.executable, "-c", "import time; print('started', flush=True); time.sleep(60)"]
    quick = [sys.executable, "-c", "raise SystemExit(2)"]
    started = time.monotonic()
    timed, done = run_processes([Job(late, tmp_path, ENV, 2.0), Job(quick, tmp_path, ENV, 60.0)])
    assert time.monotonic() - started < 30.0
    assert timed.timed_out and timed.returncode == -9 and "started" in timed.tail
    assert done.returncode == 2 and not done.timed_out


def _set_subreaper(on: bool) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.prctl(containment.PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl and /proc are Linux's")
def test_without_the_subreaper_a_detached_sleeper_is_killed_by_its_marker(
    tmp_path: Path,
) -> None:
    """Where the gate is no subreaper, an orphan goes to init, out of the gate's sight; the
    marker in its environment still names it, and it is killed before run_process returns."""
    pidfile, target = tmp_path / "sleeper.pid", tmp_path / "late.txt"
    cmd = [sys.executable, "-c", DETACH, str(pidfile), str(target), "60"]
    containment.enable_subreaper()
    _set_subreaper(False)
    try:
        outcome = run_process(cmd, tmp_path, ENV, 60.0)
    finally:
        _set_subreaper(True)
    sleeper = int(pidfile.read_text())
    assert not _alive(sleeper)
    assert [s.pid for s in outcome.stragglers] == [sleeper]
