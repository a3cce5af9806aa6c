"""What ``perfgate init`` checks of the values it writes, before it writes anything.

The workflow files are YAML with the options' values put in as text (`perfgate.adopt.
workflows`): a ``--workflow-ref`` holding a newline once gave the generated caller a
``secrets: inherit`` of its own. So each value is checked against what it can be (a git
ref, runner labels, a pip requirement on one line), and the rendered file must have exactly
its template's lines. The policy is checked by the loader the gate itself uses: init never
stores a policy its own loader rejects (an ``--asv-config`` outside the repository was).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from perfgate.config_files import PYPROJECT, config_from_text
from perfgate.errors import UserError

#: A tag, branch or commit of perfgate: git's ref characters, one line, no ``..``.
_REF = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/+-]{0,199}")
#: A runner label: letters, digits and ``. _ -`` (GitHub's own labels are such).
_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
#: The longest pip requirement taken for ``--perfgate``.
_MAX_REQUIREMENT = 500


def workflow_ref(ref: str) -> str:
    """``ref`` when it can name a commit of perfgate in ``uses: ...@REF``."""
    bad = ".." in ref or "//" in ref or ref.endswith(("/", ".", ".lock"))
    if not _REF.fullmatch(ref) or bad:
        raise UserError(
            f"--workflow-ref: expected a tag, branch or commit of perfgate (letters, digits "
            f"and . _ / + -, one line, e.g. v0.2.0 or a 40-digit SHA), got {ref!r}"
        )
    return ref


def runner_labels(labels: Sequence[str]) -> tuple[str, ...]:
    """``labels`` when each is a runner label."""
    if not labels:
        raise UserError("--runner-labels: expected at least one runner label")
    for label in labels:
        if not isinstance(label, str) or not _LABEL.fullmatch(label):
            raise UserError(
                "--runner-labels: expected labels of letters, digits and . _ - such as "
                f"'self-hosted', got {label!r}"
            )
    return tuple(labels)


def pip_requirement(spec: str) -> str:
    """``spec`` (``--perfgate``; empty: the default) when it is one printable line."""
    if len(spec) > _MAX_REQUIREMENT or any(not c.isprintable() for c in spec):
        raise UserError(
            "--perfgate: expected pip's requirement for perfgate on one line of printable "
            f"characters (at most {_MAX_REQUIREMENT}), got {spec!r}"
        )
    return spec


def same_lines(name: str, template: str, rendered: str) -> str:
    """``rendered`` when it has its template's lines, one for one: no value added any."""
    if rendered.count("\n") != template.count("\n") or "\r" in rendered:
        raise UserError(f"perfgate init: {name}: a value would add lines to the workflow")
    return rendered


def asv_config_inside(root: Path, named: Path | None) -> Path | None:
    """``--asv-config`` as a path relative to the repository at ``root`` (normalised: no
    ``..``), or an error naming it: the policy stores it, and its loader takes nothing
    else (the gate reads the file at each commit, so it must be the repository's)."""
    if named is None:
        return None
    candidate = Path(os.path.normpath(named if named.is_absolute() else root / named))
    top = root.resolve()
    if candidate.resolve().is_relative_to(top):
        relative = _relative(candidate, root) or _relative(candidate.resolve(), top)
        if relative is not None and relative.parts[:1] != ("..",):
            return relative
    raise UserError(
        f"--asv-config {named}: expected a file inside the repository {root} (relative to "
        "it, such as benchmarks/asv.conf.json); the gate reads it at each commit"
    )


def _relative(path: Path, root: Path) -> Path | None:
    try:
        return path.relative_to(root)
    except ValueError:
        return None


def policy_loads(path: Path, text: str) -> None:
    """The policy init would write loads with the gate's own loader, or an error."""
    top_level = path.name != PYPROJECT
    try:
        config_from_text(text, f"{path.name} (as init would write it)", top_level=top_level)
    except UserError as exc:
        raise UserError(
            f"perfgate init: the policy would not load: {exc}; nothing written"
        ) from None
