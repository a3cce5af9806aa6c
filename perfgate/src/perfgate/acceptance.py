"""Accepting a known regression: the ``perf-regression-accepted`` label, applied by a user
with write access, turns a stable regression into a success status "accepted by @user".

Pure rules only (the GitHub calls are `perfgate.github`'s): who applied the label is taken
from the pull request's issue events (the newest ``labeled`` event of the label, unless an
``unlabeled`` one came after it), never from the event payload of the workflow run; that
user's permission on the repository comes from the collaborator permission endpoint. Only a
stable regression can be accepted: an error or a parity failure never turns green.
"""

from __future__ import annotations

import datetime as _dt
import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

ACCEPT_LABEL = "perf-regression-accepted"
#: Repository permissions (the endpoint's ``permission``) that may accept a regression.
WRITE_PERMISSIONS = frozenset({"admin", "maintain", "write"})
ACCEPTANCE_KIND = "perfgate-acceptance"


@dataclass(frozen=True)
class LabelEvent:
    """One ``labeled`` / ``unlabeled`` issue event, oldest first as the API lists them."""

    action: str
    label: str
    actor: str


class AcceptanceState(enum.Enum):
    """What the label says about a regression."""

    NOT_REQUESTED = "not requested"  # the label is not on the pull request
    ACCEPTED = "accepted"
    REFUSED = "refused"  # applied by a user without write access


@dataclass(frozen=True)
class Acceptance:
    """The outcome of the label check, with the user who applied the label."""

    state: AcceptanceState
    actor: str | None = None
    permission: str | None = None

    @property
    def accepted(self) -> bool:
        """True when the regression is accepted."""
        return self.state is AcceptanceState.ACCEPTED


def label_applier(events: Sequence[LabelEvent], label: str) -> str | None:
    """Who applied ``label`` last, or None when it is not applied now."""
    applier: str | None = None
    for event in events:
        if event.label != label:
            continue
        if event.action == "labeled":
            applier = event.actor
        elif event.action == "unlabeled":
            applier = None
    return applier


def judge(applier: str | None, permission: str | None) -> Acceptance:
    """Accepted when the label's applier has write access (admin, maintain or write)."""
    if applier is None:
        return Acceptance(AcceptanceState.NOT_REQUESTED)
    if permission in WRITE_PERMISSIONS:
        return Acceptance(AcceptanceState.ACCEPTED, applier, permission)
    return Acceptance(AcceptanceState.REFUSED, applier, permission)


def status_summary(acceptance: Acceptance, summary: str) -> str:
    """The commit status summary of an accepted regression."""
    return f"accepted by @{acceptance.actor}: {summary}"


def comment_note(acceptance: Acceptance, label: str) -> str:
    """The markdown appended to the sticky comment ('' when the label is not applied)."""
    if acceptance.state is AcceptanceState.ACCEPTED:
        return (
            f"\n\n> **Regression accepted by @{acceptance.actor}** (label `{label}`, "
            f"permission {acceptance.permission}): the `perfgate` status is success. "
            "The acceptance is recorded in the perf-results history.\n"
        )
    if acceptance.state is AcceptanceState.REFUSED:
        return (
            f"\n\n> Label `{label}` applied by @{acceptance.actor}, who lacks write access "
            f"(permission {acceptance.permission or 'none'}): not accepted; the regression "
            "still blocks.\n"
        )
    return ""


def acceptance_record(
    acceptance: Acceptance, pr: int, sha: str, summary: str, label: str, now: _dt.datetime
) -> dict[str, Any]:
    """The ``perfgate-acceptance`` v1 document appended to the perf-results history."""
    return {
        "api_version": 1,
        "kind": ACCEPTANCE_KIND,
        "pull_request": pr,
        "head": sha,
        "accepted_by": acceptance.actor,
        "permission": acceptance.permission,
        "label": label,
        "summary": summary,
        "accepted_at": now.isoformat(timespec="seconds"),
    }
