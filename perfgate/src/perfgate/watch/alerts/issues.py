"""One GitHub issue per alerted regression: opened once, updated, closed when it recovers.

Same layering as `perfgate.github` (whose error type, retry rule and redaction it reuses):
`IssuesApi` is the few HTTP calls, `Github3Issues` implements them with github3.py and makes
no decisions, `Alerter` decides over any `IssuesApi`. An issue is found through the state
(its number) or, when the state lost it, through the hidden marker in the body of an issue
the posting identity opened: never duplicated.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from perfgate.github import DEFAULT_API_URL, DEFAULT_COMMENT_AUTHOR, Github3Session, GitHubApiError
from perfgate.github_retry import with_retries
from perfgate.retry import RetryPolicy
from perfgate.secrets import Redactor
from perfgate.watch.alerts.pulls import PullRef, pull_for_commit
from perfgate.watch.alerts.text import (
    LABEL,
    Links,
    closing_comment,
    issue_body,
    issue_title,
    marker,
)
from perfgate.watch.alerts.text import should_alert as _should_alert
from perfgate.watch.changes.detect import ChangeStatus
from perfgate.watch.changes.series import Series
from perfgate.watch.records.state import WatchedChange

LOG = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class Issue:
    """An issue as the alerter needs it."""

    number: int
    title: str
    body: str
    state: str  # "open" or "closed"
    author: str = ""


class IssuesApi(Protocol):
    """The HTTP calls of the alerts; implementations make no decisions."""

    def list_issues(self, label: str) -> list[Issue]:
        """Every issue (open or closed) carrying ``label``."""
        ...

    def get_issue(self, number: int) -> Issue:
        """Issue ``number``."""
        ...

    def create_issue(self, title: str, body: str, labels: list[str]) -> Issue:
        """Open an issue."""
        ...

    def edit_issue(self, number: int, *, title: str, body: str, state: str) -> Issue:
        """Replace the title and body of issue ``number`` and set its state."""
        ...

    def comment(self, number: int, body: str) -> None:
        """Comment on issue ``number``."""
        ...

    def pulls_of_commit(self, sha: str) -> list[PullRef]:
        """The pull requests GitHub associates with commit ``sha``."""
        ...


@dataclass(frozen=True)
class Action:
    """What the alerter did (or, in a dry run, would do) for one change."""

    verb: str  # open, adopt, update, close, none
    issue: int | None
    title: str
    text: str  # the body or comment posted


class Alerter:
    """Opens, updates and closes the issues of watched changes over an `IssuesApi`."""

    def __init__(
        self,
        api_factory: Callable[[], IssuesApi] | None,
        links: Links,
        author: str = DEFAULT_COMMENT_AUTHOR,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        branch: str | None = None,
        redactor: Redactor | None = None,
    ) -> None:
        # None: a dry run, nothing is sent. The client is made on first use, so a run with
        # nothing to post needs no token.
        self._factory = api_factory
        self._api: IssuesApi | None = None
        self.links = links
        self.author = author
        self.policy = policy or RetryPolicy()
        self.sleep = sleep
        self.clock = clock
        #: the watched branch: a culprit's pull request must have merged into it (None: any)
        self.branch = branch
        #: every title, body and comment is redacted before it is compared, posted or shown
        #: (default: the secrets of the process environment and its GITHUB_TOKEN)
        self.redactor = redactor or Redactor.from_env(
            os.environ, (os.environ.get("GITHUB_TOKEN", ""),)
        )

    @property
    def dry_run(self) -> bool:
        """True when nothing is sent (no client factory)."""
        return self._factory is None

    @property
    def api(self) -> IssuesApi:
        """The client, made on first use (only outside a dry run)."""
        if self._factory is None:
            raise RuntimeError("dry run: the alerter has no GitHub client")
        if self._api is None:
            self._api = self._factory()
        return self._api

    def _retry(self, what: str, call: Callable[[], T]) -> T:
        return with_retries(what, call, self.policy, self.sleep, self.clock)

    def sync(
        self, change: WatchedChange, series: Series, alert_suspected: bool, unit: str = ""
    ) -> tuple[Action, WatchedChange | None]:
        """Bring the issue of ``change`` up to date; the action and the snapshot to record."""
        if change.status in (ChangeStatus.RECOVERED, ChangeStatus.NOT_CONFIRMED):
            return self._close(change)
        if change.issue is None and not _should_alert(change, alert_suspected):
            return Action("none", None, "", ""), None
        if self.dry_run:
            title, body = self._texts(change, series, unit)
            verb = "open" if change.issue is None else "update"
            return Action(verb, change.issue, title, body), None
        found_pr = self._culprit_pr(change)
        if found_pr is not None:
            change = change.updated(culprit_pr=found_pr)
        title, body = self._texts(change, series, unit)
        action, snapshot = self._post(change, title, body)
        if snapshot is None and found_pr is not None:
            snapshot = change
        return action, snapshot

    def _texts(self, change: WatchedChange, series: Series, unit: str) -> tuple[str, str]:
        """The issue's title and body, redacted."""
        body = issue_body(change, series, self.links, unit)
        return self.redactor.text(issue_title(change)), self.redactor.text(body)

    def _post(
        self, change: WatchedChange, title: str, body: str
    ) -> tuple[Action, WatchedChange | None]:
        """Open, adopt or update the issue of ``change``; the action and what to record."""
        api = self.api
        if change.issue is None:
            found = self._retry("find issue", lambda: self._find(change.change_id))
            if found is None:
                made = self._retry("open issue", lambda: self._open_once(change, title, body))
                return Action("open", made.number, title, body), change.updated(issue=made.number)
            self._update(found, title, body)
            return Action("adopt", found.number, title, body), change.updated(issue=found.number)
        number = change.issue
        current = self._retry("get issue", lambda: api.get_issue(number))
        changed = self._update(current, title, body)
        return Action("update" if changed else "none", number, title, body), None

    def _culprit_pr(self, change: WatchedChange) -> int | None:
        """The culprit's pull request from GitHub, when its subject named none (a rebase
        merge); None when there is nothing to look up or GitHub cannot say (the issue is
        posted all the same, naming the commit)."""
        culprit = change.culprit
        if culprit is None or change.culprit_pr is not None:
            return None
        try:
            pulls = self._retry("pulls of commit", lambda: self.api.pulls_of_commit(culprit))
        except GitHubApiError as exc:
            LOG.warning("the pull request of %s is unknown: %s", culprit[:12], exc)
            return None
        return pull_for_commit(culprit, pulls, self.branch)

    def _find(self, change_id: str) -> Issue | None:
        """Our own issue whose body starts with the change's marker, if any."""
        for issue in self.api.list_issues(LABEL):
            if issue.author == self.author and issue.body.lstrip().startswith(marker(change_id)):
                return issue
        return None

    def _open_once(self, change: WatchedChange, title: str, body: str) -> Issue:
        # Searching again before each attempt makes a retried create safe: a timed-out POST
        # that did land is found by its marker instead of opened twice.
        return self._find(change.change_id) or self.api.create_issue(title, body, [LABEL])

    def _update(self, issue: Issue, title: str, body: str) -> bool:
        """Edit ``issue`` when its title or body differ (an open issue stays open)."""
        api = self.api
        if (issue.title, issue.body) == (title, body):
            return False
        self._retry(
            "update issue",
            lambda: api.edit_issue(issue.number, title=title, body=body, state=issue.state),
        )
        return True

    def _close(self, change: WatchedChange) -> tuple[Action, WatchedChange | None]:
        if change.issue is None or change.issue_closed:
            return Action("none", change.issue, "", ""), None
        text = self.redactor.text(closing_comment(change, self.links))
        if self.dry_run:
            return Action("close", change.issue, "", text), None
        api, number = self.api, change.issue
        issue = self._retry("get issue", lambda: api.get_issue(number))
        if issue.state != "closed":
            self._retry("comment", lambda: api.comment(number, text))
            self._retry(
                "close issue",
                lambda: api.edit_issue(number, title=issue.title, body=issue.body, state="closed"),
            )
        return Action("close", number, "", text), change.updated(issue_closed=True)


class Github3Issues(Github3Session):
    """`IssuesApi` over github3.py; every failure becomes a redacted `GitHubApiError`."""

    def _issue(self, number: int) -> Any:
        repo = self._repository()
        with self._translate(f"get issue #{number}"):
            found = repo.issue(number)
        if found is None:
            raise GitHubApiError(f"GitHub issue #{number}: not found", 404)
        return found

    def list_issues(self, label: str) -> list[Issue]:
        """Every issue with ``label``, open or closed (github3 follows the pages)."""
        repo = self._repository()
        with self._translate(f"list issues labelled {label}"):
            return [_issue(i) for i in repo.issues(state="all", labels=label)]

    def get_issue(self, number: int) -> Issue:
        """Issue ``number``."""
        return _issue(self._issue(number))

    def create_issue(self, title: str, body: str, labels: list[str]) -> Issue:
        """Open an issue."""
        repo = self._repository()
        with self._translate("create issue"):
            made = repo.create_issue(title, body=body, labels=labels)
        if made is None:
            raise GitHubApiError("GitHub create issue: empty response")
        return _issue(made)

    def edit_issue(self, number: int, *, title: str, body: str, state: str) -> Issue:
        """Replace title and body, set the state."""
        issue = self._issue(number)
        with self._translate(f"edit issue #{number}"):
            ok = issue.edit(title=title, body=body, state=state)
        if not ok:
            raise GitHubApiError(f"GitHub edit issue #{number}: not accepted")
        return _issue(issue)

    def comment(self, number: int, body: str) -> None:
        """Comment on issue ``number``."""
        issue = self._issue(number)
        with self._translate(f"comment on #{number}"):
            made = issue.create_comment(body)
        if made is None:
            raise GitHubApiError(f"GitHub comment on #{number}: empty response")

    def pulls_of_commit(self, sha: str) -> list[PullRef]:
        """GitHub's pull requests associated with commit ``sha`` (github3 follows the pages)."""
        repo = self._repository()
        with self._translate(f"pulls of commit {sha[:12]}"):
            commit = repo.commit(sha)
            if commit is None:
                raise GitHubApiError(f"GitHub commit {sha[:12]}: not found", 404)
            return [_pull(p) for p in commit.associated_pull_requests()]


def _pull(raw: Any) -> PullRef:
    base = getattr(raw, "base", None)
    return PullRef(
        number=int(raw.number),
        merged=getattr(raw, "merged_at", None) is not None,
        merge_commit_sha=getattr(raw, "merge_commit_sha", None),
        base=str(getattr(base, "ref", "") or ""),
    )


def _issue(raw: Any) -> Issue:
    user = getattr(raw, "user", None)
    return Issue(
        number=int(raw.number),
        title=str(raw.title or ""),
        body=str(raw.body or ""),
        state=str(raw.state or "open"),
        author=str(getattr(user, "login", "") or ""),
    )


def issues_from_env(env: dict[str, str] | Any, timeout: float = 10.0) -> Github3Issues:
    """A `Github3Issues` from Actions-style variables (as `perfgate.github.client_from_env`)."""
    token = env.get("GITHUB_TOKEN", "")
    repository = env.get("GITHUB_REPOSITORY", "")
    if not token:
        raise ValueError("GITHUB_TOKEN: not set; expected a token with issues: write")
    if not repository:
        raise ValueError("GITHUB_REPOSITORY: not set; expected 'owner/name'")
    return Github3Issues(env.get("GITHUB_API_URL") or DEFAULT_API_URL, token, repository, timeout)
