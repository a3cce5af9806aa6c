"""`perfgate watch` run in-process against the fake GitHub API on a scripted history, and the
watch state it left on the history's perf-results branch: shared by the watch alert and
bisection tests."""

from __future__ import annotations

import io
from collections.abc import Callable

from gh_env import actions_env
from gh_fake_api import FakeServer
from watch_history import ScriptedHistory

from perfgate.config import GateConfig
from perfgate.history.branch import branch_git, fetch_tip, list_tree
from perfgate.watch.probes.prober import Prober
from perfgate.watch.service import WatchOptions, watch


def run_watch(
    history: ScriptedHistory,
    server: FakeServer,
    prober_factory: Callable[[GateConfig], Prober] | None = None,
    **options: object,
) -> str:
    """Run ``perfgate watch`` (``options`` as WatchOptions fields) on ``history``; its output.
    The history has no pyproject.toml, so the defaults apply (threshold 5%)."""
    out = io.StringIO()
    opts = WatchOptions(
        results=history.results,
        repo=history.repo,
        config=history.repo / "pyproject.toml",
        remote=str(history.remote),
        **options,  # type: ignore[arg-type]
    )
    env = actions_env(server, GITHUB_SERVER_URL="https://github.example")
    assert watch(opts, env=env, out=out, prober_factory=prober_factory) == 0
    return out.getvalue()


def state_files(history: ScriptedHistory) -> list[str]:
    """The watch state files on the history's perf-results branch."""
    git = branch_git(history.repo)
    tip = fetch_tip(git, str(history.remote), "perf-results")
    return sorted(p for p in list_tree(git, tip) if p.startswith("watch/"))
