"""A fake GitHub REST API on 127.0.0.1 that checks every request against the OpenAPI spec.

It keeps issue comments, commit statuses, label events and collaborator permissions in
memory, answers the few operations the poster uses, and can be scripted to fail (403
secondary rate limit, 502, slow responses) for the next requests. Any request that is not in
the spec, or any response that would not fit the spec, is recorded in ``violations``; the
fixture fails the test when that list is not empty.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from gh_fake_issues import IssuesMixin
from gh_openapi import OpenApi, Operation

OWNER, REPO = "octo-org", "bench-repo"


#: The login GITHUB_TOKEN comments are made as.
BOT = "github-actions[bot]"


@dataclass
class Scripted:
    """A canned answer for the next matching request (``status=None``: serve normally)."""

    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    message: str = "scripted failure"
    delay: float = 0.0
    method: str | None = None


@dataclass
class Recorded:
    """One request as the fake saw it."""

    method: str
    path: str
    body: Any
    status: int


class FakeGitHub(IssuesMixin):
    """State + behaviour of the fake; the HTTP handler below only parses and forwards."""

    def __init__(self, spec: OpenApi, token: str, prefix: str = "") -> None:
        self.spec = spec
        self.token = token
        self.prefix = prefix
        self.base = ""  # set once the server knows its port
        self.comments: dict[int, dict[str, Any]] = {}
        self.statuses: list[dict[str, Any]] = []
        self.issues: dict[int, dict[str, Any]] = {}  # opened through the API (IssuesMixin)
        #: (action "labeled"/"unlabeled", label, actor) of every pull request, oldest first
        self.label_events: dict[int, list[tuple[str, str, str]]] = {}
        #: login -> repository permission (admin, maintain, write, triage, read); else none
        self.permissions: dict[str, str] = {}
        #: commit sha -> the pull requests associated with it: {number, merged, base,
        #: merge_commit_sha} (``GET .../commits/{sha}/pulls``; unknown commits have none)
        self.commit_pulls: dict[str, list[dict[str, Any]]] = {}
        #: the repository's Actions variables (name -> value) and labels (perfgate doctor)
        self.variables: dict[str, str] = {}
        self.labels: set[str] = set()
        self.requests: list[Recorded] = []
        self.violations: list[str] = []
        self.script: list[Scripted] = []
        self.page_size_cap = 100
        self._next_id = 1000
        self._lock = threading.Lock()

    # -- request entry point ------------------------------------------------------------
    def handle(
        self, method: str, raw_path: str, headers: dict[str, str], body: Any
    ) -> tuple[int, dict[str, str], Any]:
        url = urlsplit(raw_path)
        query = dict(parse_qsl(url.query))
        path = url.path
        with self._lock:
            scripted = self._take_script(method)
        if scripted is not None and scripted.status is not None:
            time.sleep(scripted.delay)
            reply = self._error(scripted.status, scripted.message, scripted.headers)
            return self._record(method, path, body, reply)
        reply = self._serve(method, path, query, headers, body)
        if scripted is not None:  # a slow answer: the work is done, the reply comes late
            time.sleep(scripted.delay)
        return reply

    def _serve(
        self, method: str, path: str, query: dict[str, str], headers: dict[str, str], body: Any
    ) -> tuple[int, dict[str, str], Any]:
        if not path.startswith(self.prefix + "/"):
            return self._violation(
                method, path, body, f"path {path!r} lacks the API prefix {self.prefix!r}"
            )
        op = self.spec.match(method, path[len(self.prefix) :])
        if op is None:
            return self._violation(
                method, path, body, f"{method} {path}: not in the OpenAPI description"
            )
        problems = self.spec.check_params(op, query) + self.spec.check_body(op, body)
        if problems:
            return self._violation(method, path, body, f"{method} {op.template}: {problems}")
        if headers.get("authorization") != f"token {self.token}":
            return self._record(method, path, body, self._error(401, "Bad credentials"))
        with self._lock:
            status, out_headers, payload = self._dispatch(op, query, body, headers)
        schema = self.spec.response_schema(op, status)
        if schema is not None:
            bad = self.spec.check(schema, payload, f"response {status}")
            if bad:
                self.violations.append(f"{method} {op.template} response: {bad}")
        return self._record(method, path, body, (status, out_headers, payload))

    def _take_script(self, method: str) -> Scripted | None:
        for i, item in enumerate(self.script):
            if item.method in (None, method):
                return self.script.pop(i)
        return None

    def _record(
        self, method: str, path: str, body: Any, reply: tuple[int, dict[str, str], Any]
    ) -> tuple[int, dict[str, str], Any]:
        self.requests.append(Recorded(method, path, body, reply[0]))
        return reply

    def _violation(
        self, method: str, path: str, body: Any, text: str
    ) -> tuple[int, dict[str, str], Any]:
        self.violations.append(text)
        return self._record(method, path, body, self._error(400, f"fake: {text}"))

    def _error(
        self, status: int, message: str, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], Any]:
        return (
            status,
            dict(headers or {}),
            {"message": message, "documentation_url": "https://docs.github.com/rest"},
        )

    # -- operations ---------------------------------------------------------------------
    def _dispatch(
        self, op: Operation, query: dict[str, str], body: Any, headers: dict[str, str]
    ) -> tuple[int, dict[str, str], Any]:
        key = (op.method, op.template)
        p = op.params
        if (p.get("owner"), p.get("repo")) != (OWNER, REPO):
            return self._error(404, "Not Found")
        full = "full" in headers.get("accept", "")
        if key == ("GET", "/repos/{owner}/{repo}"):
            return 200, {}, self._repository(op)
        issues_reply = self._dispatch_issues(op, query, body)
        if issues_reply is not None:
            return issues_reply
        if key == ("GET", "/repos/{owner}/{repo}/issues/{issue_number}"):
            return 200, {}, self._issue(op, int(p["issue_number"]))
        if key == ("GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments"):
            return self._list_comments(op, int(p["issue_number"]), query, full)
        if key == ("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments"):
            comment = self._new_comment(int(p["issue_number"]), body["body"])
            return 201, {}, self._comment_json(op, comment, full)
        if key == ("PATCH", "/repos/{owner}/{repo}/issues/comments/{comment_id}"):
            comment = self.comments.get(int(p["comment_id"]))
            if comment is None:
                return self._error(404, "Not Found")
            comment["body"], comment["edits"] = body["body"], comment["edits"] + 1
            return 200, {}, self._comment_json(op, comment, full)
        if key == ("GET", "/repos/{owner}/{repo}/issues/{issue_number}/events"):
            return 200, {}, self._events(op, int(p["issue_number"]))
        if key == ("DELETE", "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}"):
            return self._remove_label(op, int(p["issue_number"]), p["name"])
        if key == ("GET", "/repos/{owner}/{repo}/collaborators/{username}/permission"):
            return 200, {}, self._permission(op, p["username"])
        if key == ("GET", "/repos/{owner}/{repo}/commits/{ref}"):
            return 200, {}, self._commit(op, p["ref"])
        if key == ("GET", "/repos/{owner}/{repo}/commits/{commit_sha}/pulls"):
            return 200, {}, self._commit_pulls(op, p["commit_sha"], full)
        if key == ("GET", "/repos/{owner}/{repo}/actions/variables"):
            return 200, {}, self._variables(op, query)
        if key == ("GET", "/repos/{owner}/{repo}/labels/{name}"):
            if p["name"] not in self.labels:
                return self._error(404, "Not Found")
            return 200, {}, self._label(op, p["name"])
        if key == ("POST", "/repos/{owner}/{repo}/statuses/{sha}"):
            self.statuses.append({"sha": p["sha"], **body})
            return 201, {}, self._status_json(op, p["sha"], body)
        self.violations.append(f"fake does not implement {op.method} {op.template}")
        return self._error(404, "Not Found")

    def _fill(self, op: Operation, status: int) -> Any:
        return self.spec.generate(self.spec.response_schema(op, status), self.base)

    def _repo_url(self) -> str:
        return f"{self.base}/repos/{OWNER}/{REPO}"

    def _repository(self, op: Operation) -> dict[str, Any]:
        data = self._fill(op, 200)
        data.update(name=REPO, full_name=f"{OWNER}/{REPO}", url=self._repo_url())
        data["owner"].update(login=OWNER)
        return data

    def _issue(self, op: Operation, number: int) -> dict[str, Any]:
        data = self._fill(op, 200)
        url = f"{self._repo_url()}/issues/{number}"
        data.update(
            number=number,
            url=url,
            comments_url=f"{url}/comments",
            labels_url=f"{url}/labels{{/name}}",
        )
        return data

    def _new_comment(self, number: int, body: str, author: str = BOT) -> dict[str, Any]:
        self._next_id += 1
        comment = {"id": self._next_id, "issue": number, "body": body, "edits": 0}
        comment["author"] = author
        self.comments[comment["id"]] = comment
        return comment

    def _comment_json(self, op: Operation, comment: dict[str, Any], full: bool) -> dict[str, Any]:
        schema = self.spec.response_schema(op, 201 if op.method == "POST" else 200)
        if schema.get("type") == "array":
            schema = schema["items"]
        data = self.spec.generate(schema, self.base)
        issue_url = f"{self._repo_url()}/issues/{comment['issue']}"
        data.update(
            id=comment["id"],
            body=comment["body"],
            url=f"{self._repo_url()}/issues/comments/{comment['id']}",
            issue_url=issue_url,
            html_url=f"https://github.example/{OWNER}/{REPO}/pull/{comment['issue']}#issuecomment-{comment['id']}",
        )
        data["user"].update(login=comment["author"])
        if full:  # the application/vnd.github.full+json media type adds rendered bodies
            data.update(
                body_text=comment["body"], body_html=f"<p>{len(comment['body'])} chars</p>"
            )
        return data

    def _list_comments(
        self, op: Operation, number: int, query: dict[str, str], full: bool
    ) -> tuple[int, dict[str, str], Any]:
        mine = [c for c in self.comments.values() if c["issue"] == number]
        per_page = min(int(query.get("per_page", 30)), self.page_size_cap)
        page = int(query.get("page", 1))
        chunk = mine[(page - 1) * per_page : page * per_page]
        headers = {}
        if page * per_page < len(mine):
            url = (
                f"{self._repo_url()}/issues/{number}/comments?per_page={per_page}&page={page + 1}"
            )
            headers["Link"] = f'<{url}>; rel="next"'
        return 200, headers, [self._comment_json(op, c, full) for c in chunk]

    def _events(self, op: Operation, number: int) -> list[dict[str, Any]]:
        """The issue's label events, shaped as the spec's labeled/unlabeled issue events."""
        items = self.spec.resolve(self.spec.response_schema(op, 200)["items"])
        out = []
        for k, (action, label, actor) in enumerate(self.label_events.get(number, [])):
            options = [self.spec.resolve(s) for s in items.get("anyOf", [items])]
            schema = next(s for s in options if "label" in s.get("required", []))
            data = self.spec.generate(schema, self.base)
            data.update(id=k + 1, event=action, url=f"{self._repo_url()}/issues/events/{k + 1}")
            data["actor"].update(login=actor)
            data["label"] = {"name": label, "color": "d73a4a"}
            out.append(data)
        return out

    def active_labels(self, number: int) -> list[str]:
        """The labels ``number`` carries now, from its label events."""
        active: dict[str, bool] = {}
        for action, label, _actor in self.label_events.get(number, []):
            active[label] = action == "labeled"
        return [label for label, on in active.items() if on]

    def _remove_label(
        self, op: Operation, number: int, name: str
    ) -> tuple[int, dict[str, str], Any]:
        if name not in self.active_labels(number):
            return self._error(404, "Label does not exist")
        self.label_events.setdefault(number, []).append(("unlabeled", name, BOT))
        item = self.spec.resolve(self.spec.response_schema(op, 200)["items"])
        labels = []
        for k, label in enumerate(self.active_labels(number)):
            data = self.spec.generate(item, self.base)
            data.update(id=k + 1, name=label)
            labels.append(data)
        return 200, {}, labels

    def _permission(self, op: Operation, login: str) -> dict[str, Any]:
        data = self._fill(op, 200)
        permission = self.permissions.get(login, "none")
        data.update(permission=permission, role_name=permission)
        data["user"].update(login=login)
        return data

    def _variables(self, op: Operation, query: dict[str, str]) -> dict[str, Any]:
        """One page of the repository's variables (``per_page``, ``page``)."""
        per_page = min(int(query.get("per_page", 10)), 30)
        page = int(query.get("page", 1))
        names = sorted(self.variables)[(page - 1) * per_page : page * per_page]
        item = self.spec.resolve(self.spec.response_schema(op, 200))["properties"]["variables"]
        rows = []
        for name in names:
            row = self.spec.generate(item["items"], self.base)
            row.update(name=name, value=self.variables[name])
            rows.append(row)
        return {"total_count": len(self.variables), "variables": rows}

    def _label(self, op: Operation, name: str) -> dict[str, Any]:
        data = self._fill(op, 200)
        data.update(name=name, url=f"{self._repo_url()}/labels/{name}")
        return data

    def _commit(self, op: Operation, sha: str) -> dict[str, Any]:
        data = self._fill(op, 200)
        data.update(sha=sha, url=f"{self._repo_url()}/commits/{sha}")
        return data

    def _commit_pulls(self, op: Operation, sha: str, full: bool) -> list[dict[str, Any]]:
        item = self.spec.resolve(self.spec.response_schema(op, 200)["items"])
        out = []
        for pull in self.commit_pulls.get(sha, []):
            data = self.spec.generate(item, self.base)
            data.update(
                number=pull["number"],
                url=f"{self._repo_url()}/pulls/{pull['number']}",
                merged_at="2026-11-30T12:00:00Z" if pull["merged"] else None,
                merge_commit_sha=pull.get("merge_commit_sha"),
                state="closed" if pull["merged"] else "open",
            )
            data["base"].update(ref=pull["base"])
            if full:  # the application/vnd.github.full+json media type adds rendered bodies
                data.update(body_text=data.get("body") or "", body_html="<p></p>")
            out.append(data)
        return out

    def _status_json(self, op: Operation, sha: str, body: dict[str, Any]) -> dict[str, Any]:
        data = self._fill(op, 201)
        data.update(
            state=body["state"],
            context=body.get("context", "default"),
            description=body.get("description"),
            target_url=body.get("target_url"),
            url=f"{self._repo_url()}/statuses/{sha}",
        )
        return data


class _Handler(BaseHTTPRequestHandler):
    fake: FakeGitHub

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = {"__invalid_json__": raw.decode(errors="replace")}
        headers = {k.lower(): v for k, v in self.headers.items()}
        status, out_headers, payload = self.fake.handle(self.command, self.path, headers, body)
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            for key, value in out_headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # client gave up (timeout tests)
            pass

    do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _serve


class FakeServer:
    """Runs a :class:`FakeGitHub` on 127.0.0.1:<random port> in a daemon thread."""

    def __init__(self, fake: FakeGitHub) -> None:
        handler = type("Handler", (_Handler,), {"fake": fake})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        host, port = self.httpd.server_address[:2]
        fake.base = f"http://{host}:{port}{fake.prefix}"
        self.fake = fake
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def api_url(self) -> str:
        """The value for ``GITHUB_API_URL``."""
        return self.fake.base

    def __enter__(self) -> FakeServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)
