"""Pure parts of perfgate.history: per-file decisions, names, push outcomes, retry delays."""

from __future__ import annotations

import random

import pytest

from perfgate.history.append import (
    Action,
    PushOutcome,
    ResultFile,
    classify_push,
    plan_changes,
    renamed_path,
)
from perfgate.history.branch import HistoryError
from perfgate.history.costs import all_rounds
from perfgate.retry import RetryPolicy
from perfgate.secrets import redact_url as redact


def _file(path: str, content: bytes, blob: str) -> ResultFile:
    return ResultFile(path, content, blob)


def test_absent_files_are_added() -> None:
    """A file the branch does not have is added under its own path."""
    changes = plan_changes({}, [_file("m/abc-env.json", b"{}", "b1")])
    assert [(c.target, c.action) for c in changes] == [("m/abc-env.json", Action.ADD)]


def test_identical_result_is_a_no_op() -> None:
    """Same path, same blob: nothing to write."""
    changes = plan_changes({"m/abc-env.json": "b1"}, [_file("m/abc-env.json", b"{}", "b1")])
    assert changes[0].action is Action.UNCHANGED
    assert not changes[0].action.writes


def test_differing_result_is_stored_under_a_content_name_never_overwritten() -> None:
    """A re-run result with other content goes next to the stored one."""
    new = _file("m/abc-env.json", b'{"x": 2}', "b2")
    changes = plan_changes({"m/abc-env.json": "b1"}, [new])
    assert changes[0].action is Action.ADD_RENAMED
    assert changes[0].target == renamed_path("m/abc-env.json", b'{"x": 2}')
    assert changes[0].target != "m/abc-env.json"


def test_renamed_result_already_stored_is_a_no_op() -> None:
    """Retrying after a lost race finds the renamed file and writes nothing."""
    content = b'{"x": 2}'
    renamed = renamed_path("m/abc-env.json", content)
    existing = {"m/abc-env.json": "b1", renamed: "b2"}
    changes = plan_changes(existing, [_file("m/abc-env.json", content, "b2")])
    assert changes[0].action is Action.UNCHANGED
    assert changes[0].target == renamed


def test_renamed_target_with_other_content_is_an_error() -> None:
    """Even a (hypothetical) digest-prefix collision never overwrites a stored file."""
    content = b'{"x": 2}'
    existing = {"m/abc-env.json": "b1", renamed_path("m/abc-env.json", content): "b9"}
    with pytest.raises(HistoryError, match="exists with other content"):
        plan_changes(existing, [_file("m/abc-env.json", content, "b2")])


@pytest.mark.parametrize("path", ["benchmarks.json", "m/machine.json"])
def test_differing_metadata_replaces(path: str) -> None:
    """Suite and machine descriptions are not results: the newest replaces the stored one."""
    changes = plan_changes({path: "b1"}, [_file(path, b"{}", "b2")])
    assert (changes[0].target, changes[0].action) == (path, Action.REPLACE)


def test_renamed_path_is_deterministic_and_keeps_the_commit_prefix() -> None:
    """The name depends on the content only; asv still reads the hash before the first '-'."""
    a = renamed_path("m/0123abcd-virtualenv-py3.11.json", b"one")
    assert a == renamed_path("m/0123abcd-virtualenv-py3.11.json", b"one")
    assert a != renamed_path("m/0123abcd-virtualenv-py3.11.json", b"two")
    assert a.startswith("m/0123abcd-virtualenv-py3.11.") and a.endswith(".json")


def test_redact_hides_url_credentials() -> None:
    """Tokens embedded in remote URLs never reach messages."""
    text = "To https://x-access-token:ghs_SECRET@github.com/o/r.git rejected"
    assert "ghs_SECRET" not in redact(text)
    assert "https://***@github.com/o/r.git" in redact(text)


@pytest.mark.parametrize(
    "line",
    [
        "!\tabc:refs/heads/perf-results\t[rejected] (fetch first)",
        "!\tabc:refs/heads/perf-results\t[rejected] (non-fast-forward)",
        "!\tabc:refs/heads/perf-results\t[remote rejected] (cannot lock ref 'x')",
        "!\tabc:refs/heads/perf-results\t[remote rejected] (failed to update ref)",
    ],
)
def test_races_are_retryable(line: str) -> None:
    """A moved or locked tip is a race, to be retried on a fresh fetch."""
    assert classify_push(1, f"To /r.git\n{line}\nDone\n") is PushOutcome.RACED


def test_other_push_failures_are_fatal() -> None:
    """A hook rejection or an auth error is not retried: it fails closed."""
    hook = "To /r.git\n!\tabc:refs/heads/p\t[remote rejected] (pre-receive hook declined)\n"
    with pytest.raises(HistoryError, match="hook declined"):
        classify_push(1, hook)
    with pytest.raises(HistoryError, match="Authentication failed"):
        classify_push(128, "fatal: Authentication failed for 'https://u:t@h/r'")


def test_successful_push() -> None:
    """Exit status 0 is a push."""
    assert classify_push(0, "To /r.git\n*\tabc:refs/heads/p\t[new branch]\nDone\n") is (
        PushOutcome.PUSHED
    )


def test_retry_delay_is_bounded_full_jitter() -> None:
    """Delays lie in [0, min(max, base * 2**(attempt-1))]."""
    policy = RetryPolicy(attempts=10, base_delay=0.5, max_delay=4.0)
    rng = random.Random(7)
    for attempt in range(1, 11):
        cap = min(4.0, 0.5 * 2 ** (attempt - 1))
        delays = [policy.delay(attempt, rng) for _ in range(50)]
        assert all(0.0 <= d <= cap for d in delays)
    assert len({round(policy.delay(3, rng), 9) for _ in range(20)}) > 1  # jittered


@pytest.mark.parametrize("kwargs", [{"attempts": 0}, {"base_delay": -1.0}, {"max_delay": 0.1}])
def test_bad_retry_policy_is_rejected(kwargs: dict[str, float]) -> None:
    """A policy that cannot retry sensibly is a ValueError naming the values."""
    with pytest.raises(ValueError, match="retry policy"):
        RetryPolicy(**kwargs)  # type: ignore[arg-type]


def test_a_rows_duration_is_one_of_its_interleaved_rounds() -> None:
    """asv keeps only the last interleaved round's wall time in a row: the plan counts all."""
    durations = {"<build>": 60.0, "hot_slice.S.time_a": 40.0, "collector.C.track_b": 80.0}
    assert all_rounds(durations, {"hot_slice.S.time_a": 4}) == {
        "<build>": 60.0,
        "hot_slice.S.time_a": 160.0,
        "collector.C.track_b": 80.0,
    }
