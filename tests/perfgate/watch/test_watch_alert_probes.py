"""What an alert says about the re-measurement: the probe table, the culprit and its pull
request, a bisection still under way, and the comment closing a change not confirmed."""

from __future__ import annotations

import dataclasses

from watch_fakes import series_of, sha

from perfgate.watch.alerts.text import Links, closing_comment, issue_body, issue_title
from perfgate.watch.changes.detect import ChangePoint, ChangeStatus, Direction, Evidence
from perfgate.watch.probes.prober import Probe, ProbeVerdict
from perfgate.watch.records.state import new_change

SERIES = series_of([1.0] * 7 + [1.08] * 5)  # point k is commit sha(k)
POINT = ChangePoint(
    2, sha(3), sha(7), 1.0, 1.08, 1.08, Direction.REGRESSION, 0.001, Evidence.SAMPLES
)
WORSE = Probe(sha(3), sha(7), ProbeVerdict.WORSE, 1.081, 1.062, 1.099, 190.0)
SAME = Probe(sha(3), sha(5), ProbeVerdict.NOT_WORSE, 1.002, 0.991, 1.013, 180.0)
LINKS = Links("https://github.example/o/r")


def test_a_bisected_change_names_its_culprit_pull_request_and_probes() -> None:
    change = dataclasses.replace(
        new_change(SERIES, POINT),
        status=ChangeStatus.BISECTED,
        culprit=sha(6),
        culprit_pr=107,
        probes=(WORSE, SAME),
    )
    assert issue_title(change).endswith(f"at {sha(6)[:8]} (#107)")
    body = issue_body(change, SERIES, LINKS)
    assert f"- culprit (bisected): [{sha(6)[:10]}](" in body and "pull request #107" in body
    assert f"| `{sha(3)[:10]}..{sha(7)[:10]}` | worse | 1.081 | 1.062–1.099 | 3.2 |" in body
    assert "| not-worse | 1.002 |" in body and "re-measured yet" not in body


def test_a_bisection_under_way_shows_its_narrowed_range() -> None:
    change = dataclasses.replace(
        new_change(SERIES, POINT),
        status=ChangeStatus.CONFIRMED,
        narrowed_good=sha(5),
        narrowed_bad=sha(7),
        probes=(WORSE, SAME),
    )
    body = issue_body(change, SERIES, LINKS)
    assert "- narrowed by bisection to" in body and "(to be continued)" in body
    assert "culprit" not in issue_title(change) and "(#" not in issue_title(change)


def test_a_change_not_confirmed_is_closed_with_the_probe_that_said_so() -> None:
    change = dataclasses.replace(
        new_change(SERIES, POINT), status=ChangeStatus.NOT_CONFIRMED, probes=(SAME,)
    )
    text = closing_comment(change, LINKS)
    assert "Not confirmed" in text and "not-worse: ratio 1.002 (CI 0.991-1.013)" in text
