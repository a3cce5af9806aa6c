"""The text of a watch alert: the issue's title and body, and the comment that closes it.

Pure. A body starts with a hidden marker naming the change (`marker`), so a later run finds
its own issue even when the state lost the number (a push that failed after the issue was
opened); the poster only trusts a marker in an issue its own identity opened.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfgate.watch.alerts.plot import history_svg
from perfgate.watch.changes.detect import ChangeStatus, Direction
from perfgate.watch.changes.series import Series
from perfgate.watch.records.state import WatchedChange

#: The label every watch issue carries (the listing filter of the marker search).
LABEL = "perfgate-watch"
_MARKER = "<!-- perfgate-watch:{change_id} -->"


@dataclass(frozen=True)
class Links:
    """Where an alert links to: the repository's web URL and the published dashboard."""

    repository_url: str | None = None  # e.g. https://github.com/owner/name
    dashboard_url: str | None = None  # the asv dashboard's root


def marker(change_id: str) -> str:
    """The hidden first line of the issue body of change ``change_id``."""
    return _MARKER.format(change_id=change_id)


def should_alert(change: WatchedChange, alert_suspected: bool) -> bool:
    """Whether ``change`` deserves an issue: a regression the re-measurement confirmed or a
    bisection named (or, with ``alert_suspected``, one only the history shows)."""
    if change.direction is not Direction.REGRESSION:
        return False
    if change.status in (ChangeStatus.CONFIRMED, ChangeStatus.BISECTED):
        return True
    return alert_suspected and change.status is ChangeStatus.SUSPECTED


def issue_title(change: WatchedChange) -> str:
    """``Performance regression: bench(p) on machine +8.0% at abcdef12`` (and ``(#123)``, the
    culprit's pull request, once bisected)."""
    commit = change.culprit or change.commit
    pull = f" (#{change.culprit_pr})" if change.culprit and change.culprit_pr else ""
    return (
        f"Performance regression: {change.label} {100 * (change.ratio - 1):+.1f}% "
        f"at {commit[:8]}{pull}"
    )


def _commit_link(links: Links, sha: str) -> str:
    if links.repository_url:
        return f"[{sha[:10]}]({links.repository_url}/commit/{sha})"
    return f"`{sha[:10]}`"


def comparison_table(change: WatchedChange) -> str:
    """The markdown table of the change: levels before and after, ratio, evidence."""
    rows = [
        "| case | machine | before | after | ratio (worse > 1) | p-value | evidence | status |",
        "|---|---|---:|---:|---:|---:|---|---|",
        f"| `{change.benchmark}({', '.join(change.params)})` | {change.machine} "
        f"| {change.before:.4g} | {change.after:.4g} | {change.ratio:.3f} "
        f"| {change.p_value:.2g} | {change.evidence.value} | {change.status.value} |",
    ]
    return "\n".join(rows)


def probe_table(change: WatchedChange) -> str:
    """The markdown table of the paired A/B re-measurements (confirmation, bisection)."""
    rows = [
        "| A/B probe (A..B) | verdict | ratio B/A (worse > 1) | 95% CI | minutes |",
        "|---|---|---:|---|---:|",
    ]
    for p in change.probes:
        ratio = f"{p.ratio:.3f}" if p.ratio is not None else "-"
        ci = "-"
        if p.ci_low is not None and p.ci_high is not None:
            ci = f"{p.ci_low:.3f}–{p.ci_high:.3f}"
        verdict = p.verdict.value + (f" ({p.note})" if p.note else "")
        rows.append(
            f"| `{p.base[:10]}..{p.head[:10]}` | {verdict} | {ratio} | {ci} "
            f"| {p.seconds / 60:.1f} |"
        )
    return "\n".join(rows)


def _bisection_lines(change: WatchedChange, links: Links) -> list[str]:
    """The culprit and its pull request, or the range a bisection narrowed it to so far."""
    if change.culprit:
        pull = f" from pull request #{change.culprit_pr}" if change.culprit_pr else ""
        return [f"- culprit (bisected): {_commit_link(links, change.culprit)}{pull}"]
    if change.narrowed_good and change.narrowed_bad:
        return [
            f"- narrowed by bisection to {_commit_link(links, change.narrowed_good)}.."
            f"{_commit_link(links, change.narrowed_bad)} (to be continued)"
        ]
    return []


def issue_body(change: WatchedChange, series: Series, links: Links, unit: str = "") -> str:
    """The issue body: marker, summary, table, range and links, and the history plot."""
    lines = [
        marker(change.change_id),
        f"`perfgate watch` found a regression of **{change.label}**: "
        f"{100 * (change.ratio - 1):+.1f}% ({change.status.value}).",
        "",
        comparison_table(change),
        "",
        f"- last good measured commit: {_commit_link(links, change.last_good_commit)}",
        f"- first bad measured commit: {_commit_link(links, change.commit)}",
    ]
    lines += _bisection_lines(change, links)
    if links.repository_url:
        compare = f"{links.repository_url}/compare/{change.last_good_commit}...{change.commit}"
        lines.append(f"- commits in the range: [compare]({compare})")
    if links.dashboard_url:
        lines.append(
            f"- dashboard: [{change.benchmark}]({links.dashboard_url}#{change.benchmark})"
        )
    if change.status is ChangeStatus.SUSPECTED:
        lines += [
            "",
            "Suspected from the stored history only; it has not been re-measured yet.",
        ]
    if change.probes:
        lines += ["", probe_table(change)]
    svg = history_svg(series, change, unit)
    lines += [
        "",
        "<details><summary>History around the change (SVG; save as .svg to view)</summary>",
        "",
        "```svg",
        svg.rstrip("\n"),
        "```",
        "</details>",
        "",
    ]
    return "\n".join(lines)


def recovery_comment(change: WatchedChange, links: Links) -> str:
    """The comment posted when a later change brought the case back."""
    by = _commit_link(links, change.recovered_by) if change.recovered_by else "a later commit"
    return (
        f"{marker(change.change_id)}\n"
        f"Recovered: from {by} on, {change.label} is back within its threshold of the level "
        f"before this regression. Closing (`perfgate watch`)."
    )


def not_confirmed_comment(change: WatchedChange, links: Links) -> str:
    """The comment posted when the A/B re-measurement did not confirm a suspected regression
    (an issue opened for it with ``--alert-suspected``)."""
    last = change.probes[-1].describe() if change.probes else "no probe"
    return (
        f"{marker(change.change_id)}\n"
        f"Not confirmed: a paired A/B re-measurement of {change.label} between "
        f"{_commit_link(links, change.last_good_commit)} and {_commit_link(links, change.commit)} "
        f"found no regression beyond the threshold ({last}). Closing (`perfgate watch`)."
    )


def closing_comment(change: WatchedChange, links: Links) -> str:
    """The comment that closes the issue of a recovered or not-confirmed change."""
    if change.status is ChangeStatus.NOT_CONFIRMED:
        return not_confirmed_comment(change, links)
    return recovery_comment(change, links)
