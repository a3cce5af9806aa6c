"""``perfgate doctor``'s GitHub checks: a workflow calls the gate, the repository
variables those workflows read (without a default) exist, and the labels the gate's flow
uses exist. The repository is asked through its API (``GITHUB_TOKEN``, ``GITHUB_REPOSITORY``
or the ``origin`` remote, ``GITHUB_API_URL``); without a token that part is a note."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

from perfgate import git
from perfgate.adopt.report_lines import Finding, note, ok, problem
from perfgate.github import DEFAULT_API_URL, Github3Session
from perfgate.github_retry import GitHubApiError
from perfgate.secrets import redact

#: ``vars.NAME`` not followed by ``||`` (a variable with a default is optional).
_REQUIRED_VAR = re.compile(r"\bvars\.([A-Za-z_][A-Za-z0-9_]*)\b(?!\s*\|\|)")
#: Labels the gate's workflows act on: the fork flow's and the acceptance override's.
LABELS = {"safe-to-bench": "perfgate-fork", "perf-regression-accepted": "gate.yml"}
_REMOTE = re.compile(r"github\.com[:/]([^/]+/[^/]+?)(?:\.git)?$")


class RepositorySettings(Protocol):
    """The repository's settings doctor reads."""

    def variables(self) -> set[str]:
        """The names of the repository's Actions variables."""
        ...

    def has_label(self, name: str) -> bool:
        """True when the repository has label ``name``."""
        ...


class Github3Settings(Github3Session):
    """`RepositorySettings` through the GitHub REST API (github3.py's session)."""

    def _get(self, what: str, path: str, params: dict[str, int] | None = None) -> Any:
        """GET ``path`` of the repository: the response (200 or 404), else an error (an
        API it cannot reach too: no traceback)."""
        import requests

        url = f"{self._gh.session.base_url}/repos/{self._owner}/{self._name}/{path}"
        try:
            with self._translate(what):
                response = self._gh.session.get(url, params=params)
        except requests.RequestException as exc:
            reason = type(exc).__name__
            raise GitHubApiError(
                redact(f"GitHub {what}: cannot reach {url} ({reason})", self._secrets)
            ) from None
        if response.status_code not in (200, 404):
            raise GitHubApiError(f"GitHub {what}: {response.status_code}", response.status_code)
        return response

    def variables(self) -> set[str]:
        names: set[str] = set()
        for page in range(1, 100):
            params = {"per_page": 30, "page": page}
            response = self._get("list the repository's variables", "actions/variables", params)
            if response.status_code != 200:
                raise GitHubApiError("GitHub list the repository's variables: 404", 404)
            found = response.json().get("variables", [])
            names.update(str(v["name"]) for v in found)
            if len(found) < 30:
                break
        return names

    def has_label(self, name: str) -> bool:
        response = self._get(f"get label {name}", f"labels/{quote(name, safe='')}")
        return bool(response.status_code == 200)


def _workflows(root: Path) -> dict[str, str]:
    folder = root / ".github" / "workflows"
    files = sorted(folder.glob("*.yml")) + sorted(folder.glob("*.yaml"))
    return {p.name: p.read_text(encoding="utf-8", errors="replace") for p in files}


def required_variables(workflows: Mapping[str, str]) -> dict[str, str]:
    """Variable -> the first workflow that reads it without a default."""
    found: dict[str, str] = {}
    for name, text in workflows.items():
        for match in _REQUIRED_VAR.finditer(text):
            found.setdefault(match.group(1), name)
    return found


def repository_slug(root: Path, env: Mapping[str, str]) -> str | None:
    """``owner/name``: ``GITHUB_REPOSITORY``, else the ``origin`` remote on github.com."""
    if env.get("GITHUB_REPOSITORY"):
        return env["GITHUB_REPOSITORY"]
    try:
        url = git.Git(root).out("remote", "get-url", "origin")
    except git.GitError:
        return None
    match = _REMOTE.search(url)
    return match.group(1) if match else None


def _settings(root: Path, env: Mapping[str, str]) -> RepositorySettings | str:
    """The API client, or why there is none."""
    slug = repository_slug(root, env)
    if not env.get("GITHUB_TOKEN") or slug is None:
        return "set GITHUB_TOKEN (and GITHUB_REPOSITORY, or an origin on github.com)"
    return Github3Settings(env.get("GITHUB_API_URL") or DEFAULT_API_URL, env["GITHUB_TOKEN"], slug)


def github_checks(
    root: Path, env: Mapping[str, str], settings: RepositorySettings | None = None
) -> list[Finding]:
    """The workflows call the gate; their variables and labels exist in the repository."""
    workflows = _workflows(root)
    callers = [n for n, text in workflows.items() if "/workflows/gate.yml" in text]
    findings = [
        ok(f"workflows calling the gate: {', '.join(callers)}")
        if callers
        else problem("no workflow calls perfgate's gate.yml: pull requests are not gated",
                     "perfgate init (writes .github/workflows/perfgate.yml and perfgate-fork.yml)")
    ]  # fmt: skip
    api = settings if settings is not None else _settings(root, env)
    if isinstance(api, str):
        return [*findings, note(f"GitHub variables and labels not checked: {api}")]
    try:
        present = api.variables()
        for name, workflow in sorted(required_variables(workflows).items()):
            findings.append(
                ok(f"GitHub variable {name}") if name in present else problem(
                    f"GitHub variable {name} is not set ({workflow} reads it, with no default)",
                    f"gh variable set {name} --body VALUE (Settings > Secrets and variables > "
                    "Actions > Variables)",
                )
            )  # fmt: skip
        for label, used_by in LABELS.items():
            if not any(used_by in n or used_by in t for n, t in workflows.items()):
                continue
            findings.append(
                ok(f"label {label}") if api.has_label(label) else problem(
                    f"label {label} does not exist (the gate's workflows use it)",
                    f"gh label create {label}",
                )
            )  # fmt: skip
    except GitHubApiError as exc:
        findings.append(api_problem(exc))
    return findings


def api_problem(exc: GitHubApiError) -> Finding:
    """A failed API call as a problem: the settings the gate needs were not checked, and the
    token the workflows would use (401: rejected; 403: not allowed) is the likely cause."""
    if exc.status == 401:
        fix = "GITHUB_TOKEN is not a valid token: set a current one (a fine-grained token with "
        fix += "Variables: read and Issues: read, or `gh auth token`)"
    elif exc.status == 403:
        fix = "give GITHUB_TOKEN read access to the repository's variables and labels"
    else:
        fix = "check GITHUB_API_URL and the network, then run perfgate doctor --only github again"
    return problem(f"GitHub variables and labels not checked: {exc}", fix)
