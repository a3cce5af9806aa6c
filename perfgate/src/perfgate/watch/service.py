"""`perfgate watch` at the edges: read the results and the state, post, record, print.

The order of a run: the first-parent history of ``--ref`` (git), the series of the results
directory (`load`), the stored snapshots of the ``perf-results`` branch (`store`), detection
and reconciliation (`run.analyse`), with ``--confirm``/``--bisect`` the paired A/B probes of
this machine's regressions (`run.follow_up_all` over `gate_prober.GateProber`), the issues
(`run.alert`), and last the new snapshots appended to the branch, so an issue opened is
recorded with its number. A dry run measures, posts and records nothing: it prints the probes
it would run and what it would post.
"""

from __future__ import annotations

import datetime
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from perfgate import git
from perfgate.config import GateConfig
from perfgate.config_files import config_on_disk, load_config
from perfgate.formats.benchmarks_json import read_benchmarks
from perfgate.gate.hooks import Hooks
from perfgate.github import DEFAULT_COMMENT_AUTHOR
from perfgate.history.branch import HistoryError, branch_git, first_parent_history
from perfgate.secrets import Redactor
from perfgate.watch.alerts.issues import Action, Alerter, IssuesApi, issues_from_env
from perfgate.watch.alerts.text import Links
from perfgate.watch.changes.detect import ChangeStatus
from perfgate.watch.changes.load import case_selector, load_series, unplaced_problem
from perfgate.watch.confirm import FollowUp, wants_probe
from perfgate.watch.probes.bisect import Budget
from perfgate.watch.probes.gate_prober import GateProber, local_machine
from perfgate.watch.probes.prober import Prober
from perfgate.watch.recheck import wants_recheck
from perfgate.watch.records.record import watched_record
from perfgate.watch.records.state import WatchedChange
from perfgate.watch.records.store import read_state, record_state
from perfgate.watch.redaction import Selector, raw_selector, redacted_series, watch_redactor
from perfgate.watch.run import Analysis, alert, analyse, follow_up_all, tip_of


@dataclass(frozen=True)
class WatchOptions:
    """What `perfgate watch` was asked to do (see `perfgate.commands.watch`)."""

    results: Path
    repo: Path = Path(".")
    ref: str = "HEAD"
    config: Path | None = None  # None: the project's (perfgate.toml or pyproject.toml)
    remote: str = "origin"
    branch: str = "perf-results"
    use_state: bool = True
    alert_suspected: bool = False
    dry_run: bool = False
    as_json: bool = False
    dashboard_url: str | None = None
    issue_author: str | None = None
    confirm: bool = False  # re-measure suspected regressions of this machine
    bisect: bool = False  # and bisect confirmed ranges (implies confirm)
    machine: str | None = None  # this runner's asv machine name (default: fingerprint id)
    budget_minutes: float | None = None  # default: watch_budget_minutes
    max_steps: int | None = None  # default: watch_max_steps
    work_dir: Path | None = None  # the probes' gate runs (default: <repo>/.perfgate)
    alerts: bool = True  # False: record the state, post no issue (another job alerts)


ProberFactory = Callable[[GateConfig], Prober]


def watch(
    options: WatchOptions,
    env: Mapping[str, str] | None = None,
    out: TextIO | None = None,
    api_factory: Callable[[], IssuesApi] | None = None,
    prober_factory: ProberFactory | None = None,
) -> int:
    """Carry out one watch run; 0 (errors raise `UserError`/`HistoryError`, exit 3).

    ``env`` defaults to the process environment, ``out`` to stdout; ``prober_factory`` makes
    the prober of ``--confirm`` (default: the gate's pipeline on this machine).
    """
    env = os.environ if env is None else env
    out = sys.stdout if out is None else out
    config = (
        config_on_disk(options.repo, required=False)
        if options.config is None
        else load_config(options.config, required=False)
    )
    history = first_parent_history(branch_git(options.repo), options.ref, "--ref")
    loaded = load_series(options.results, history[::-1], config.is_higher_better, config.is_sim)
    where = f"the first-parent history of {options.ref} in {options.repo}"
    unusable, problem = unplaced_problem(loaded, where)
    if unusable:
        raise HistoryError(f"{options.results}: {problem}")
    if problem is not None:
        print(f"perfgate watch: warning: {problem}", file=sys.stderr)
    for reason in loaded.skipped:
        print(f"perfgate watch: skipped: {reason}", file=sys.stderr)
    stored = _stored(options)
    redactor = watch_redactor(env)
    shown, raw_params = redacted_series(loaded.series, redactor)
    analysis = analyse(shown, config, stored)
    if options.confirm or options.bisect:
        prober = (prober_factory or _gate_prober(options))(config)
        plan = _follow_up_plan(options, config, prober, history[::-1])
        select = raw_selector(case_selector(options.results), raw_params)
        analysis = _follow_up(options, analysis, plan, select)
    actions, analysis = _alert(options, env, analysis, api_factory, redactor)
    if options.use_state and not options.dry_run and analysis.snapshots:
        record_state(
            options.repo, options.remote, options.branch, analysis.snapshots, _now(), redactor
        )
    _print(analysis, actions, options, out)
    return 0


def _alert(
    options: WatchOptions,
    env: Mapping[str, str],
    analysis: Analysis,
    api_factory: Callable[[], IssuesApi] | None,
    redactor: Redactor,
) -> tuple[list[tuple[WatchedChange, Action]], Analysis]:
    """The issues of the run (none with ``--no-alerts``: another job posts them), their
    titles, bodies and comments redacted."""
    if not options.alerts:
        return [], analysis
    units = {name: info.unit for name, info in read_benchmarks(options.results).items()}
    alerter = Alerter(
        None if options.dry_run else (api_factory or (lambda: issues_from_env(env))),
        _links(env, options.dashboard_url),
        options.issue_author or env.get("PERFGATE_COMMENT_AUTHOR") or DEFAULT_COMMENT_AUTHOR,
        branch=watched_branch(options.repo, options.ref),
        redactor=redactor,
    )
    return alert(analysis, alerter, options.alert_suspected, lambda b: units.get(b, ""))


def watched_branch(repo: Path, ref: str) -> str | None:
    """The branch ``ref`` names (``main`` for ``HEAD`` on main, ``origin/main`` or
    ``refs/heads/main``); None when it names none (a detached head or a commit)."""
    done = git.Git(repo).run("rev-parse", "--abbrev-ref", ref)
    name = done.stdout.decode(errors="replace").strip() if done.returncode == 0 else ""
    name = name.removeprefix("origin/")
    return name if name and name != "HEAD" else None


def _gate_prober(options: WatchOptions) -> ProberFactory:
    def make(config: GateConfig) -> Prober:
        machine = options.machine or local_machine(config, Hooks())
        return GateProber(options.repo, config, machine, options.work_dir)

    return make


def _follow_up_plan(
    options: WatchOptions, config: GateConfig, prober: Prober, history: list[str]
) -> FollowUp:
    minutes = options.budget_minutes or config.watch_budget_minutes
    steps = options.max_steps or config.watch_max_steps
    repo = git.Git(options.repo)
    return FollowUp(
        prober,
        Budget(steps, 60.0 * minutes),
        history,
        bisect=options.bisect,
        subject_of=lambda sha: repo.out("log", "-1", "--format=%s", sha),
    )


def _follow_up(
    options: WatchOptions, analysis: Analysis, plan: FollowUp, select: Selector
) -> Analysis:
    """The probes of this run (a dry run only names them, on stderr)."""
    machine = plan.prober.machine
    if options.dry_run:
        for change in analysis.changes:
            tip = tip_of(change, analysis)
            if wants_probe(change, machine, options.bisect):
                what = "confirm" if change.status is ChangeStatus.SUSPECTED else "bisect"
                span = f"{change.last_good_commit[:8]}..{change.commit[:8]}"
            elif wants_recheck(change, machine, tip, plan.history):
                what, span = (
                    "re-measure for a recovery",
                    f"{change.last_good_commit[:8]}..{str(tip)[:8]}",
                )
            else:
                continue
            print(f"perfgate watch: would {what} {span} of {change.label}", file=sys.stderr)
        return analysis
    done = follow_up_all(analysis, plan, lambda c: select(c.benchmark, c.params))
    before = {c.change_id: len(c.probes) for c in analysis.changes}
    for change in done.changes:
        for probe in change.probes[before.get(change.change_id, 0) :]:
            print(f"perfgate watch: probe {change.label}: {probe.describe()}", file=sys.stderr)
    return done


def _stored(options: WatchOptions) -> list[WatchedChange]:
    if not options.use_state:
        return []
    return read_state(options.repo, options.remote, options.branch)


def _links(env: Mapping[str, str], dashboard_url: str | None) -> Links:
    server, repository = env.get("GITHUB_SERVER_URL"), env.get("GITHUB_REPOSITORY")
    repository_url = f"{server.rstrip('/')}/{repository}" if server and repository else None
    return Links(repository_url, dashboard_url)


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _print(
    analysis: Analysis,
    actions: Sequence[tuple[WatchedChange, Action]],
    options: WatchOptions,
    out: TextIO,
) -> None:
    if options.as_json:
        records = [watched_record(change) for change in analysis.changes]
        out.write(json.dumps(records, indent=1) + "\n")
        return
    out.write(format_table(analysis.changes))
    for change, action in actions:
        if action.verb == "none":
            continue
        where = f"#{action.issue}" if action.issue is not None else "a new issue"
        prefix = "would " if options.dry_run else ""
        out.write(f"\n{prefix}{action.verb} {where} for {change.label}\n")
        if options.dry_run:
            if action.title:
                out.write(f"title: {action.title}\n")
            out.write(action.text.rstrip("\n") + "\n")


def format_table(changes: Sequence[WatchedChange]) -> str:
    """The human table: one line per change, or one line saying there is none."""
    if not changes:
        return "perfgate watch: no change points in the stored history\n"
    rows = [("status", "direction", "ratio", "range", "issue", "case")]
    for c in changes:
        issue = f"#{c.issue}" if c.issue is not None else "-"
        span = f"{c.last_good_commit[:8]}..{c.commit[:8]}"
        rows.append((c.status.value, c.direction.value, f"{c.ratio:.3f}", span, issue, c.label))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = [
        "  ".join(f"{v:<{w}}" for v, w in zip(r, widths, strict=False)) + "  " + r[5] for r in rows
    ]
    culprits = [
        f"culprit of {c.label}: {c.culprit}"
        + (f" (pull request #{c.culprit_pr})" if c.culprit_pr else "")
        for c in changes
        if c.culprit
    ]
    return "\n".join([*(line.rstrip() for line in lines), *culprits]) + "\n"
