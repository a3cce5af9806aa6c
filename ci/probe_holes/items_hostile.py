"""Items 5, 8 and 14d, hostile heads: a head whose code detaches a sleeper holding asv's pipes
(the gate must stay short and name what it killed; the same gate also edits the suites, which
item 14d checks), and a head committing a link out of the repository (init, the gate and
``perfgate.git.export_commit`` must keep it a link). The sleepers this run starts are tagged
and ended here."""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import time
from pathlib import Path

from perfgate import git as pg_git

from .harness import Ctx, Ran, Row, commit_branch, git, new_repo, perfgate
from .tiny_project import SUITE, WORK, bare_pyproject, gate, policy, read, tiny_files

#: the detached sleeper of item 5: long enough that waiting for it cannot hide
SLEEP_S = 240


#: in the sleepers' environment: this script ends only the sleepers it made
SLEEPER_TAG = f"PROBE_HOLES_SLEEPER={os.getpid()}"
HOSTILE_WORK = f"""import os
import subprocess

# the probe's hostile head: every process importing this detaches a sleeper holding its pipes
env = dict(os.environ, PROBE_HOLES_SLEEPER="{SLEEPER_TAG.split("=")[1]}")
subprocess.run(["setsid", "sh", "-c", "sleep {SLEEP_S} &"], check=True, env=env)

{WORK}"""
LINK_TARGET = "/usr/share/common-licenses/Apache-2.0"


def sleepers() -> list[int]:
    """Pids of the item-5 sleepers this script's hostile head started, still alive."""
    done = subprocess.run(
        ["pgrep", "-x", "-f", f"sleep {SLEEP_S}"], capture_output=True, text=True
    )
    return [int(p) for p in done.stdout.split() if _tagged(int(p))]


def _tagged(pid: int) -> bool:
    """Does process ``pid`` carry `SLEEPER_TAG` in its environment?"""
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:  # gone already
        return False
    return SLEEPER_TAG.encode() in environ


def setup_seconds(work_dir: Path) -> float | None:
    """``setup_s`` of the run's timeline.json (None when none was written)."""
    for path in sorted(work_dir.rglob("timeline.json")):
        return float(json.loads(path.read_text())["setup_s"])
    return None


@functools.cache
def hostile_gate(ctx: Ctx) -> tuple[Ran, Path, float | None, list[int]]:
    """The gate of main against a head that detaches sleepers and edits the suites:
    (ran, report dir, setup_s, sleepers left)."""
    root = ctx.folder("item-05-hostile-gate")
    repo = new_repo(root / "repo", tiny_files(policy(ctx.python)))
    suite = SUITE.replace("class Tiny:", "class Tiny:  # the head's edit, never measured")
    files = {"tinypkg/__init__.py": HOSTILE_WORK, "benchmarks/bench_tiny.py": suite}
    commit_branch(repo, "hostile", files, {})
    ran, out = gate(ctx, repo, "hostile", "hostile", timeout=2 * SLEEP_S)
    left = sleepers()
    for pid in left:  # started by this run: end them
        os.kill(pid, signal.SIGKILL)
    if ran.code is None:  # timed out: its orphaned asv may still start one more
        time.sleep(10)
        for pid in sleepers():
            os.kill(pid, signal.SIGKILL)
    return ran, out, setup_seconds(root / "gatework-hostile"), left


def item_5(ctx: Ctx) -> list[Row]:
    """A head whose code detaches a sleeper holding asv's pipes."""
    ran, out, setup_s, left = hostile_gate(ctx)
    report = read(out / "report.md")
    named = f"sleep {SLEEP_S}" in report and "contained" in report
    fast = setup_s is not None and setup_s < SLEEP_S / 4 and ran.seconds < SLEEP_S
    ok = ran.code in (0, 1) and fast and named and not left
    setup = f"{setup_s:.1f} s" if setup_s is not None else "none recorded"
    return [Row(
        "5", f"gate main vs a head whose package detaches `setsid sh -c 'sleep {SLEEP_S} &'` "
        "in every process importing it (parity, discovery, rounds)",
        f"exit 0/1; setup_s and the run far below {SLEEP_S} s; report names the killed "
        "sleepers; none left running",
        f"exit {ran.code}; setup_s {setup}; gate {ran.seconds:.0f} s; report names "
        f"'sleep {SLEEP_S}': {named}; sleepers left {len(left)}",
        ok,
    )]  # fmt: skip


def exported_link(repo: Path, dest: Path) -> str:
    """What the gate's own export (`perfgate.git.export_commit`) made of the link of branch
    ``linked``: 'a link' when kept as one, never followed; else what went wrong."""
    try:
        tree = pg_git.export_commit(repo, git(repo, "rev-parse", "linked"), dest)
    except Exception as exc:  # the hole: tarfile's AbsoluteLinkError
        return f"raised {type(exc).__name__}"
    link = tree / "LICENSE-LINK"
    if link.is_symlink() and os.readlink(link) == LINK_TARGET:
        return "a link"
    return "a file" if link.exists() else "missing"


def item_8(ctx: Ctx) -> list[Row]:
    """A committed link to an absolute path outside the repository: init and the gate."""
    root = ctx.folder("item-08")
    repo = new_repo(root / "repo", tiny_files(bare_pyproject()))
    os.symlink(LINK_TARGET, repo / "LICENSE-LINK")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a licence link out of the repository")
    init = perfgate(ctx, repo, "init", "--no-workflows")
    gated = new_repo(root / "gated", tiny_files(policy(ctx.python)))
    commit_branch(gated, "linked", {}, {"LICENSE-LINK": LINK_TARGET})
    ran, _ = gate(ctx, gated, "linked", "linked")
    export = exported_link(gated, root / "exports")
    policy_written = "[tool.perfgate]" in read(repo / "pyproject.toml")
    seen = "AbsoluteLinkError" in init.text + ran.text
    ok = init.code == 0 and policy_written and ran.code in (0, 1) and export == "a link"
    return [Row(
        "8", f"LICENSE-LINK -> {LINK_TARGET} committed: init; a gate of main vs a head "
        "adding it; git.export_commit of that head",
        "init exit 0 (policy written); gate exit 0/1; the export keeps the link as a link; "
        "no AbsoluteLinkError",
        f"init exit {init.code} (policy written: {policy_written}); gate exit {ran.code} "
        f"({ran.seconds:.0f} s); exported as {export}; AbsoluteLinkError seen: {seen}",
        ok and not seen,
    )]  # fmt: skip
