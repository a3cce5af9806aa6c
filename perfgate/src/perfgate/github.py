"""Post the gate's verdict to GitHub: one sticky PR comment and a ``perfgate`` commit status.

Three layers, as in conbench's benchalerts: :class:`GitHubApi` is a small Protocol for the
four HTTP calls we need and :class:`Github3Client` implements it with github3.py (HTTP only,
no decisions); pure helpers build the comment body and the status; :class:`Poster` joins them
and retries transient failures.

Notes
-----
Environment variables (GitHub Actions conventions), read by :func:`client_from_env`:
``GITHUB_TOKEN`` (required), ``GITHUB_REPOSITORY`` (``owner/name``, required),
``GITHUB_API_URL`` (default ``https://api.github.com``; GitHub Enterprise uses
``https://HOST/api/v3``). The token never appears in logs or exception text: every error
raised from this module is redacted.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from perfgate.acceptance import Acceptance, LabelEvent, judge, label_applier
from perfgate.formats.report_files import MARKER
from perfgate.github_retry import GitHubApiError, with_retries
from perfgate.retry import RetryPolicy
from perfgate.secrets import redact
from perfgate.verdict import CommitState, state_for

LOG = logging.getLogger(__name__)
T = TypeVar("T")

#: Whose marker comment the poster updates: the login behind the workflows' GITHUB_TOKEN.
#: ``PERFGATE_COMMENT_AUTHOR`` (or ``perfgate post --comment-author``) names another one,
#: e.g. a GitHub App's ``<slug>[bot]`` or a personal access token's user.
DEFAULT_COMMENT_AUTHOR = "github-actions[bot]"
STATUS_CONTEXT = "perfgate"
COMMENT_LIMIT = 65_536
DESCRIPTION_LIMIT = 140
DEFAULT_API_URL = "https://api.github.com"


@dataclass(frozen=True)
class Comment:
    """An issue comment: its id, body and author's login."""

    id: int
    body: str
    author: str = ""


class GitHubApi(Protocol):
    """The HTTP calls the poster needs; implementations make no decisions."""

    def list_comments(self, number: int) -> list[Comment]:
        """All comments of issue / pull request ``number``, oldest first."""
        ...

    def create_comment(self, number: int, body: str) -> Comment:
        """Create a comment on ``number``."""
        ...

    def edit_comment(self, comment_id: int, body: str) -> Comment:
        """Replace the body of comment ``comment_id``."""
        ...

    def create_status(
        self, sha: str, state: str, description: str, target_url: str | None, context: str
    ) -> None:
        """Create a commit status on ``sha``."""
        ...

    def label_events(self, number: int) -> list[LabelEvent]:
        """The ``labeled`` / ``unlabeled`` events of ``number``, oldest first."""
        ...

    def permission(self, login: str) -> str:
        """``login``'s permission on the repository (admin, maintain, write, read, none)."""
        ...

    def remove_label(self, number: int, label: str) -> bool:
        """Take ``label`` off ``number``; False when it was not there."""
        ...


# --- Pure helpers: comment body, status description, retry delays ---


def truncation_note(report_url: str | None, dropped: int) -> str:
    """The line appended to a shortened report."""
    where = f"[full report]({report_url})" if report_url else "the full report artifact"
    return (
        f"\n\n---\n:warning: Report shortened to fit GitHub's {COMMENT_LIMIT:,}-character "
        f"comment limit ({dropped:,} characters left out). See {where}.\n"
    )


def marker_for(context: str) -> str:
    """The hidden marker of the comment a status ``context`` keeps up to date: the gate's
    (`MARKER`) for ``perfgate``, ``<!-- NAME-report -->`` for another (the sim job's)."""
    return MARKER if context == STATUS_CONTEXT else f"<!-- {context}-report -->"


def build_comment(
    markdown: str, report_url: str | None, limit: int = COMMENT_LIMIT, marker: str = MARKER
) -> str:
    """Comment body: the hidden ``marker`` (once), the report, shortened at a line break if
    too long.

    Reports rendered by perfgate start with the gate's marker; it is replaced, not repeated.
    """
    text = markdown.rstrip()
    if text.startswith(MARKER):
        text = text[len(MARKER) :].lstrip("\n")
    body = f"{marker}\n{text}\n"
    if len(body) <= limit:
        return body
    note = truncation_note(report_url, len(body))  # the longest the count can print
    room = limit - len(note) - _CLOSERS_MAX
    keep = body[:room]
    cut = keep.rfind("\n")
    keep = keep[:cut] if cut > len(marker) else keep
    return keep + _closers(keep) + truncation_note(report_url, len(body) - len(keep))


#: Room kept for :func:`_closers` (a fence and a few ``</details>``).
_CLOSERS_MAX = 200


def _closers(text: str) -> str:
    """What a report cut inside a code fence or a ``<details>`` block needs to stay well formed
    (otherwise the warning would land inside the fence or the collapsed block)."""
    fences = re.findall(r"^(`{3,})", text, flags=re.MULTILINE)
    out = f"\n{fences[-1]}" if len(fences) % 2 else ""
    unclosed = len(re.findall(r"<details\b", text)) - len(re.findall(r"</details>", text))
    return out + "\n</details>" * max(0, min(unclosed, 10))


def status_description(summary: str) -> str:
    """One line of at most 140 characters (GitHub's limit for status descriptions)."""
    line = " ".join(summary.split()) or "perfgate"
    if len(line) <= DESCRIPTION_LIMIT:
        return line
    return line[: DESCRIPTION_LIMIT - 1] + "…"


# --- The poster: decisions over a GitHubApi ---


@dataclass(frozen=True)
class PostResult:
    """What the poster did."""

    comment_id: int
    created: bool
    state: CommitState


class Poster:
    """Sticky comment + commit status over a :class:`GitHubApi`, retrying transient errors."""

    def __init__(
        self,
        api: GitHubApi,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        author: str = DEFAULT_COMMENT_AUTHOR,
        context: str = STATUS_CONTEXT,
    ) -> None:
        self.api = api
        self.policy = policy or RetryPolicy()
        self.author = author
        #: the commit status this poster sets, and the comment it keeps (`marker_for`)
        self.context = context
        self.marker = marker_for(context)
        self.sleep = sleep
        self.clock = clock

    def _retry(self, what: str, call: Callable[[], T]) -> T:
        return with_retries(what, call, self.policy, self.sleep, self.clock)

    def _upsert_once(self, number: int, body: str) -> tuple[Comment, bool]:
        # Listing again on every attempt makes a retried create safe: if a timed-out POST
        # did land, the next attempt finds it by the marker and edits it. Only our own
        # comment counts: anyone may post the marker first, and editing theirs would put the
        # report under their name (for them to edit later), or fail for good on a 403.
        for comment in self.api.list_comments(number):
            if comment.author == self.author and comment.body.lstrip().startswith(self.marker):
                return self.api.edit_comment(comment.id, body), False
        return self.api.create_comment(number, body), True

    def upsert_comment(self, number: int, body: str) -> tuple[Comment, bool]:
        """Edit the comment carrying the marker, or create it; returns (comment, created)."""
        if not body.startswith(self.marker):
            raise ValueError("comment body: expected to start with the marker (build_comment)")
        return self._retry("comment", lambda: self._upsert_once(number, body))

    def set_status(
        self, sha: str, state: CommitState, summary: str, target_url: str | None
    ) -> None:
        """Create this poster's commit status (``perfgate`` by default) on ``sha``."""
        description = status_description(summary)
        self._retry(
            "status",
            lambda: self.api.create_status(
                sha, state.value, description, target_url, self.context
            ),
        )

    def clear_label(self, number: int, label: str) -> bool:
        """Take ``label`` off ``number`` (a new head invalidates an acceptance)."""
        return self._retry("remove label", lambda: self.api.remove_label(number, label))

    def acceptance(self, number: int, label: str) -> Acceptance:
        """Whether ``label`` on ``number`` accepts its regression (see `perfgate.acceptance`)."""
        applier = label_applier(
            self._retry("label events", lambda: self.api.label_events(number)), label
        )
        if applier is None:
            return judge(None, None)
        return judge(applier, self._retry("permission", lambda: self.api.permission(applier)))

    def publish(
        self,
        number: int,
        sha: str,
        verdict: int | str,
        markdown: str,
        summary: str,
        report_url: str | None = None,
    ) -> PostResult:
        """Post the report comment, then the status for ``verdict``."""
        state = state_for(verdict)
        body = build_comment(markdown, report_url, marker=self.marker)
        comment, created = self.upsert_comment(number, body)
        self.set_status(sha, state, summary, report_url)
        return PostResult(comment.id, created, state)


# --- github3.py client (HTTP only) ---


def split_repository(repository: str) -> tuple[str, str]:
    """``owner/name`` -> (owner, name)."""
    owner, sep, name = repository.partition("/")
    if not sep or not owner or not name or "/" in name:
        raise ValueError(f"GITHUB_REPOSITORY {repository!r}: expected 'owner/name'")
    return owner, name


class Github3Session:
    """One repository's github3.py session: the token, the API URL, and every failure turned
    into a `GitHubApiError` whose text is redacted (the PR poster and the watch's issues)."""

    def __init__(self, api_url: str, token: str, repository: str, timeout: float = 10.0) -> None:
        import github3

        if not token:
            raise ValueError("GITHUB_TOKEN: expected a non-empty token")
        self._owner, self._name = split_repository(repository)
        self._secrets = (token,)
        self._gh = github3.GitHub(token=token)
        self._gh.session.base_url = api_url.rstrip("/")
        self._gh.session.default_read_timeout = timeout
        self._repo: Any = None

    @contextmanager
    def _translate(self, what: str) -> Iterator[None]:
        from github3 import exceptions as gh_exc

        try:
            yield
        except gh_exc.GitHubError as exc:
            response = getattr(exc, "response", None)
            headers = dict(response.headers) if response is not None else {}
            code = getattr(exc, "code", None)
            message = redact(f"GitHub {what}: {code} {exc.msg}", self._secrets)
            raise GitHubApiError(message, code, headers) from None
        except gh_exc.GitHubException as exc:
            message = redact(f"GitHub {what}: {type(exc).__name__}: {exc}", self._secrets)
            raise GitHubApiError(message) from None

    def _repository(self) -> Any:
        if self._repo is None:
            with self._translate("get repository"):
                self._repo = self._gh.repository(self._owner, self._name)
        if self._repo is None:
            raise GitHubApiError(f"GitHub repository {self._owner}/{self._name}: not found", 404)
        return self._repo


class Github3Client(Github3Session):
    """:class:`GitHubApi` over github3.py; every failure becomes a redacted GitHubApiError."""

    def __init__(self, api_url: str, token: str, repository: str, timeout: float = 10.0) -> None:
        super().__init__(api_url, token, repository, timeout)
        self._issues: dict[int, Any] = {}
        self._comments: dict[int, Any] = {}

    def _issue(self, number: int) -> Any:
        if number not in self._issues:
            repo = self._repository()
            with self._translate(f"get issue #{number}"):
                self._issues[number] = repo.issue(number)
        if self._issues[number] is None:
            raise GitHubApiError(f"GitHub pull request #{number}: not found", 404)
        return self._issues[number]

    def list_comments(self, number: int) -> list[Comment]:
        """All comments on ``number`` (github3 follows the pagination links)."""
        issue = self._issue(number)
        with self._translate(f"list comments of #{number}"):
            found = list(issue.comments())
        self._comments.update({c.id: c for c in found})
        return [Comment(int(c.id), c.body or "", _login(c)) for c in found]

    def create_comment(self, number: int, body: str) -> Comment:
        """Create a comment on ``number``."""
        issue = self._issue(number)
        with self._translate(f"create comment on #{number}"):
            made = issue.create_comment(body)
        if made is None:
            raise GitHubApiError(f"GitHub create comment on #{number}: empty response")
        self._comments[made.id] = made
        return Comment(int(made.id), made.body or "", _login(made))

    def edit_comment(self, comment_id: int, body: str) -> Comment:
        """Edit a comment previously listed or created through this client."""
        comment = self._comments.get(comment_id)
        if comment is None:
            raise ValueError(f"comment_id {comment_id}: not listed by this client")
        with self._translate(f"edit comment {comment_id}"):
            ok = comment.edit(body)
        if not ok:
            raise GitHubApiError(f"GitHub edit comment {comment_id}: not accepted")
        return Comment(int(comment.id), comment.body or body, _login(comment))

    def create_status(
        self, sha: str, state: str, description: str, target_url: str | None, context: str
    ) -> None:
        """Create a commit status on ``sha``."""
        repo = self._repository()
        with self._translate(f"create status on {sha[:12]}"):
            made = repo.create_status(sha, state, target_url, description, context)
        if made is None:
            raise GitHubApiError(f"GitHub create status on {sha[:12]}: empty response")

    def label_events(self, number: int) -> list[LabelEvent]:
        """The issue events API (``GET .../issues/{number}/events``), label events only."""
        issue = self._issue(number)
        with self._translate(f"list events of #{number}"):
            found = [e.as_dict() for e in issue.events()]
        return [
            LabelEvent(e["event"], str((e.get("label") or {}).get("name", "")), _actor(e))
            for e in found
            if e.get("event") in ("labeled", "unlabeled")
        ]

    def permission(self, login: str) -> str:
        """``GET .../collaborators/{login}/permission``: the user's permission."""
        repo = self._repository()
        url = repo._build_url("collaborators", login, "permission", base_url=repo._api)
        with self._translate(f"permission of {login}"):
            data = repo._json(repo._get(url), 200)
        return str((data or {}).get("permission") or "none")

    def remove_label(self, number: int, label: str) -> bool:
        """``DELETE .../issues/{number}/labels/{label}`` (404: it was not there)."""
        issue = self._issue(number)
        try:
            with self._translate(f"remove label {label} from #{number}"):
                issue.remove_label(label)
        except GitHubApiError as exc:
            if exc.status == 404:
                return False
            raise
        return True


def _actor(event: Mapping[str, Any]) -> str:
    return str((event.get("actor") or {}).get("login") or "")


def client_from_env(env: Mapping[str, str], timeout: float = 10.0) -> Github3Client:
    """A :class:`Github3Client` configured from Actions-style environment variables."""
    token = env.get("GITHUB_TOKEN", "")
    repository = env.get("GITHUB_REPOSITORY", "")
    if not token:
        raise ValueError("GITHUB_TOKEN: not set; expected a token with pull-requests/statuses")
    if not repository:
        raise ValueError("GITHUB_REPOSITORY: not set; expected 'owner/name'")
    api_url = env.get("GITHUB_API_URL") or DEFAULT_API_URL
    return Github3Client(api_url, token, repository, timeout)


def _login(comment: Any) -> str:
    """The login of a github3 comment's author ("" when the API gave none)."""
    user = getattr(comment, "user", None)
    return str(getattr(user, "login", "") or "")
