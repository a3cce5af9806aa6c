"""Items 9-11, init: values that smuggle a YAML line into the workflows must be refused (9),
a ``.github`` that cannot be written must leave nothing half-written (10), and an asv config
outside the repository must be refused or stored as a policy its loader takes (11)."""

from __future__ import annotations

from pathlib import Path

from .harness import Ctx, Row, immutable, new_repo, perfgate
from .judging import TRACEBACK, clean_error, last_line
from .tiny_project import bare_pyproject, read, tiny_files


def init_project(ctx: Ctx, name: str) -> Path:
    """A tiny asv project without a policy, committed."""
    return new_repo(ctx.folder(name) / "repo", tiny_files(bare_pyproject()))


def workflows(repo: Path) -> str:
    """Every file under .github, joined."""
    folder = repo / ".github"
    return (
        "".join(read(p) for p in sorted(folder.rglob("*")) if p.is_file())
        if folder.is_dir()
        else ""
    )


#: values that smuggle a YAML line into the workflows: (option, value shown, value)
SMUGGLED = (
    ("--workflow-ref", "$'v1\\n    secrets: inherit'", "v1\n    secrets: inherit"),
    ("--perfgate", "$'perfgate\\n    secrets: inherit'", "perfgate\n    secrets: inherit"),
    ("--runner-labels", "'[\"x\\n    secrets: inherit\"]'", '["x\\n    secrets: inherit"]'),
)


def item_9(ctx: Ctx) -> list[Row]:
    """Values that smuggle a YAML line into the workflow (the probe's --workflow-ref; the
    other values init writes into YAML too)."""
    return [_smuggle_row(ctx, f"9{'abc'[i]}", *case) for i, case in enumerate(SMUGGLED)]


def _smuggle_row(ctx: Ctx, item: str, option: str, shown: str, value: str) -> Row:
    repo = init_project(ctx, f"item-{item}")
    ran = perfgate(ctx, repo, "init", option, value)
    smuggled = "secrets: inherit" in workflows(repo)
    untouched = read(repo / "pyproject.toml") == bare_pyproject()
    ok = ran.code == 3 and clean_error(ran) and option in ran.err and not smuggled and untouched
    return Row(
        item, f"init {option} {shown}",
        f"exit 3, a clean error naming {option}; nothing written",
        f"exit {ran.code}; 'secrets: inherit' written: {smuggled}; pyproject untouched: "
        f"{untouched}; {last_line(ran.err)!r}",
        ok,
    )  # fmt: skip


def item_10(ctx: Ctx) -> list[Row]:
    """init where .github cannot be written: all or nothing."""
    repo = init_project(ctx, "item-10")
    (repo / ".github").mkdir()
    with immutable(repo / ".github"):
        ran = perfgate(ctx, repo, "init")
    untouched = read(repo / "pyproject.toml") == bare_pyproject()
    ok = ran.code == 3 and clean_error(ran) and untouched and not workflows(repo)
    return [Row(
        "10", "init with .github immutable (chattr +i)",
        "exit 3, a clean error naming .github; pyproject.toml untouched, no workflow",
        f"exit {ran.code}; traceback: {TRACEBACK in ran.text}; pyproject untouched: "
        f"{untouched}; {last_line(ran.err)!r}",
        ok,
    )]  # fmt: skip


def item_11(ctx: Ctx) -> list[Row]:
    """init --asv-config pointing outside the repository."""
    repo = init_project(ctx, "item-11")
    new_repo(repo.parent / "other", tiny_files(bare_pyproject()))  # a working asv project
    ran = perfgate(ctx, repo, "init", "--asv-config", "../other/asv.conf.json", "--no-workflows")
    text = read(repo / "pyproject.toml")
    written = "[tool.perfgate]" in text
    loads = perfgate(ctx, repo, "doctor", "--only", "project") if written else None
    refused = ran.code == 3 and clean_error(ran) and text == bare_pyproject()
    rejected = loads is not None and "expected a file" in loads.text
    ok = refused or (ran.code == 0 and loads is not None and not rejected)
    said = _rejection(loads.text) if rejected and loads else last_line(ran.err or ran.out)
    return [Row(
        "11", "init --asv-config ../other/asv.conf.json (a working asv project beside it)",
        "refused up front (exit 3, clean error, nothing written), or a policy its loader takes",
        f"exit {ran.code}; policy written: {written}; loader rejects it: {rejected}; {said!r}",
        ok,
    )]  # fmt: skip


def _rejection(text: str) -> str:
    """The loader's complaint about the stored policy."""
    lines = [line for line in text.splitlines() if "expected a file" in line]
    return last_line(lines[0] if lines else text)
