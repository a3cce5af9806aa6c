"""The workflow files ``perfgate init`` writes: two callers of perfgate's reusable gate.yml
(branches of the repository on ``pull_request``; forks on ``pull_request_target`` behind the
``safe-to-bench`` label), from the templates in ``templates/init`` with their tokens
(``@NAME@``) replaced. jinja2 is not used here: its ``{{ }}`` is GitHub's ``${{ }}``."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from perfgate import __version__
from perfgate.adopt import init_values

TEMPLATES = Path(__file__).parent / "templates" / "init"
#: Where perfgate's reusable workflow lives (owner/name on GitHub).
PERFGATE_REPOSITORY = "perfgate/perfgate"
WORKFLOW_FILES = ("perfgate.yml", "perfgate-fork.yml")
DEFAULT_LABELS = ("self-hosted", "linux", "x64", "perf-pinned")


@dataclass(frozen=True)
class WorkflowOptions:
    """What the callers pass to gate.yml."""

    ref: str = f"v{__version__}"
    perfgate: str = ""
    runner_labels: Sequence[str] = DEFAULT_LABELS
    extra_packages: Sequence[str] = ()

    def __post_init__(self) -> None:
        # every value goes into YAML as text: checked here, before anything is discovered
        init_values.workflow_ref(self.ref)
        init_values.runner_labels(self.runner_labels)
        init_values.pip_requirement(self.perfgate)

    @property
    def package(self) -> str:
        """pip's requirement for perfgate at ``ref`` (unless given)."""
        return self.perfgate or (
            f"perfgate @ git+https://github.com/{PERFGATE_REPOSITORY}@{self.ref}"
            "#subdirectory=perfgate"
        )


def _quoted(text: str) -> str:
    """A YAML double-quoted scalar (JSON's string syntax is YAML's)."""
    return json.dumps(text)


def render(name: str, options: WorkflowOptions) -> str:
    """The text of workflow ``name`` (one of `WORKFLOW_FILES`)."""
    extras = "".join(f" {p}" for p in options.extra_packages)
    tokens: Mapping[str, str] = {
        "USES": f"{PERFGATE_REPOSITORY}/.github/workflows/gate.yml@{options.ref}",
        "PERFGATE": _quoted(options.package),
        "LABELS": "'" + json.dumps(list(options.runner_labels)) + "'",
        "SETUP": _quoted(
            'python3 -m venv .venv && .venv/bin/python -m pip install --quiet "$PERFGATE" .'
            + extras
        ),
        "VERSION": __version__,
    }
    text = (TEMPLATES / name).read_text()
    rendered = re.sub(r"@([A-Z]+)@", lambda m: tokens[m.group(1)], text)
    return init_values.same_lines(name, text, rendered)
