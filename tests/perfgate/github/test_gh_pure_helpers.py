"""Pure parts of perfgate.github: states, comment body, description, retry delays, redaction."""

from __future__ import annotations

import pytest

from perfgate.formats.report_files import MARKER
from perfgate.github import (
    COMMENT_LIMIT,
    GitHubApiError,
    build_comment,
    redact,
    split_repository,
    status_description,
)
from perfgate.github_retry import retry_delay
from perfgate.retry import RetryPolicy
from perfgate.verdict import CommitState, state_for

POLICY = RetryPolicy(attempts=5, base_delay=1.0, max_delay=30.0)


@pytest.mark.parametrize(
    ("verdict", "state"),
    [
        (0, CommitState.SUCCESS),
        (1, CommitState.FAILURE),
        (2, CommitState.FAILURE),
        (3, CommitState.ERROR),
        ("pass", CommitState.SUCCESS),
        ("regression", CommitState.FAILURE),
        ("parity_failure", CommitState.FAILURE),
        ("error", CommitState.ERROR),
        ("failure", CommitState.FAILURE),
    ],
)
def test_state_for(verdict: int | str, state: CommitState) -> None:
    assert state_for(verdict) is state


@pytest.mark.parametrize("bad", [4, -1, True, "passed", ""])
def test_state_for_rejects_unknown(bad: int | str) -> None:
    with pytest.raises(ValueError, match="verdict"):
        state_for(bad)


def test_build_comment_short_and_long() -> None:
    assert build_comment("hello\n\n", None) == f"{MARKER}\nhello\n"
    long = "".join(f"line {i:06d}\n" for i in range(10_000))
    body = build_comment(long, "https://x/r.html")
    assert len(body) <= COMMENT_LIMIT and body.startswith(MARKER)
    assert "[full report](https://x/r.html)" in body
    kept = body.split("\n\n---\n")[0]
    assert kept.endswith(("0", "1", "2", "3", "4", "5", "6", "7", "8", "9"))  # whole lines only
    no_url = build_comment(long, None, limit=2000)
    assert len(no_url) <= 2000 and "full report artifact" in no_url


def test_a_cut_inside_details_or_a_fence_is_closed_before_the_warning() -> None:
    """The warning must not land inside a collapsed block or a code fence."""
    rows = "".join(f"| case {i:05d} | 1.00 |\n" for i in range(5_000))
    report = f"## verdict\n\n<details><summary>all cases</summary>\n\n{rows}</details>\n"
    body = build_comment(report, None, limit=4000)
    assert len(body) <= 4000
    assert body.count("<details") == body.count("</details>") == 1
    assert body.index("</details>") < body.index(":warning:")
    fenced = "## parity\n\n```\n" + "".join(f"log {i}\n" for i in range(2_000)) + "```\n"
    body = build_comment(fenced, None, limit=3000)
    assert body.count("```") == 2 and body.rindex("```") < body.index(":warning:")


def test_status_description() -> None:
    assert status_description("a\n  b\tc") == "a b c"
    text = status_description("x" * 500)
    assert len(text) == 140 and text.endswith("…")
    assert status_description("   ") == "perfgate"


def _err(status: int | None, **headers: str) -> GitHubApiError:
    return GitHubApiError("boom", status, {k.replace("_", "-"): v for k, v in headers.items()})


@pytest.mark.parametrize(
    ("error", "attempt", "expected"),
    [
        (_err(None), 0, 1.0),
        (_err(502), 2, 4.0),
        (_err(503), 10, 30.0),
        (_err(403, Retry_After="12"), 0, 12.0),
        (_err(429, Retry_After="999"), 0, 30.0),
        (_err(403, X_RateLimit_Remaining="0", X_RateLimit_Reset="1005"), 0, 6.0),
        (_err(403, X_RateLimit_Remaining="0", X_RateLimit_Reset="900"), 0, 1.0),
        (_err(429), 1, 2.0),
        (_err(403), 0, None),
        (_err(403, X_RateLimit_Remaining="12", X_RateLimit_Reset="1005"), 0, None),
        (_err(404), 0, None),
        (_err(422), 0, None),
    ],
)
def test_retry_delay(error: GitHubApiError, attempt: int, expected: float | None) -> None:
    assert retry_delay(error, attempt, POLICY, now=1000.0) == expected


def test_redact_and_repository() -> None:
    assert redact("a secret b secret", ["secret", ""]) == "a *** b ***"
    assert split_repository("o/r") == ("o", "r")
    for bad in ("o", "o/", "/r", "o/r/x"):
        with pytest.raises(ValueError, match="GITHUB_REPOSITORY"):
            split_repository(bad)


def test_retry_policy_validation() -> None:
    with pytest.raises(ValueError, match="attempts >= 1"):
        RetryPolicy(attempts=0)
    with pytest.raises(ValueError, match="delays >= 0"):
        RetryPolicy(base_delay=-1.0)


def test_marker_not_repeated_when_report_has_it() -> None:
    """A perfgate report already starts with the marker: the comment carries it once."""
    from perfgate.formats.report_files import MARKER
    from perfgate.github import build_comment

    body = build_comment(f"{MARKER}\n## perfgate: pass\n", None)
    assert body.count(MARKER) == 1
    assert body.startswith(MARKER)
