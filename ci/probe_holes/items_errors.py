"""Items 12-14, clean errors and smaller holes: no git on PATH, an unreachable API and an
immutable file must give clean errors, not tracebacks (12); ``gate --plan`` on a snapshot of
this checkout must find valgrind (13); file modes, publish's errors and the hostile head's
suite edits must be right (14)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from gh_env import TOKEN

from .harness import SOURCE, Ctx, Ran, Row, Unrunnable, git, immutable, perfgate, run
from .items_hostile import hostile_gate
from .items_init import init_project
from .items_secrets import api_problems, compare, compare_tree
from .judging import TRACEBACK, clean_error, last_line, mask
from .tiny_project import bare_pyproject, read


def no_git_env(ctx: Ctx) -> dict[str, str]:
    """PATH without git (an empty folder): every git call fails to start."""
    empty = ctx.work / "empty-path"
    empty.mkdir(parents=True, exist_ok=True)
    return {"PATH": str(empty)}


def item_12(ctx: Ctx) -> list[Row]:
    """Tracebacks instead of clean errors: no git, an unreachable API, an immutable file."""
    repo = init_project(ctx, "item-12")
    env = no_git_env(ctx)
    runs = {
        "12a init, git missing from PATH": perfgate(ctx, repo, "init", env=env),
        "12b gate --plan, git missing": perfgate(
            ctx, repo, "gate", "--base", "HEAD", "--head", "HEAD", "--plan", env=env
        ),
        "12c watch, git missing": perfgate(
            ctx, repo, "watch", "--results", str(repo), "--dry-run", env=env
        ),
        "12d history pending, git missing": perfgate(
            ctx, repo, "history", "pending", "--machine", "probebox", env=env
        ),
    }
    rows = [_no_git_row(name, ran) for name, ran in runs.items()]
    return [*rows, _unreachable_api_row(ctx, repo), _immutable_file_row(ctx, repo)]


def _no_git_row(name: str, ran: Ran) -> Row:
    item, done = name.split(" ", 1)
    ok = ran.code is not None and ran.code != 0 and clean_error(ran) and "git" in ran.err
    seen = f"exit {ran.code}; traceback: {TRACEBACK in ran.text}; {last_line(ran.err)!r}"
    return Row(item, done, "a clean error naming git (documented exit), no traceback", seen, ok)


def _closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on (bound, then closed)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _unreachable_api_row(ctx: Ctx, repo: Path) -> Row:
    env = {"GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": "octo-org/bench-repo"}
    env["GITHUB_API_URL"] = f"http://127.0.0.1:{_closed_port()}"
    ran = perfgate(ctx, repo, "doctor", "--only", "github", env=env, timeout=300)
    problems = api_problems(ran, "cannot reach")
    ok = ran.code == 1 and bool(problems) and TRACEBACK not in ran.text
    shown = problems[0] if problems else "no problem says the API cannot be reached"
    return Row("12e", "doctor --only github, GITHUB_API_URL a closed port on 127.0.0.1",
               "exit 1 with a problem (API unreachable), no traceback",
               f"exit {ran.code} in {ran.seconds:.0f} s; traceback: {TRACEBACK in ran.text}; "
               f"{mask(last_line(shown), TOKEN)!r}", ok)  # fmt: skip


def _immutable_file_row(ctx: Ctx, repo: Path) -> Row:
    try:
        with immutable(repo / "pyproject.toml"):
            ran = perfgate(ctx, repo, "init", "--no-workflows")
    except Unrunnable as exc:
        return Row("12f", "init into an immutable pyproject.toml", "-", str(exc), None)
    untouched = read(repo / "pyproject.toml") == bare_pyproject()
    ok = ran.code == 3 and clean_error(ran) and untouched and "pyproject.toml" in ran.err
    seen = f"exit {ran.code}; traceback: {TRACEBACK in ran.text}; {last_line(ran.err)!r}"
    return Row("12f", "init --no-workflows with pyproject.toml immutable (chattr +i)",
               "exit 3, a clean error naming pyproject.toml, no traceback", seen, ok)  # fmt: skip


# -- item 13: gate --plan on this repository -------------------------------------------


def snapshot(source: Path, repo: Path) -> None:
    """The files git sees in ``source`` (but .perfgate/ and caches), committed in a new repo."""
    listed = git(source, "ls-files", "-co", "--exclude-standard", "-z").split("\0")
    for rel in filter(None, listed):
        if rel.startswith((".perfgate/", ".cache/")) or not (source / rel).is_file():
            continue
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / rel, repo / rel)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "snapshot")


def item_13(ctx: Ctx) -> list[Row]:
    """gate --plan on this repository (its policy names sim) with valgrind installed."""
    repo = ctx.folder("item-13") / "repo"
    repo.mkdir()
    snapshot(SOURCE, repo)
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return [Row("13", "gate --plan on this repository", "exit 0", "valgrind is not "
                    "installed here: `make valgrind` first", None)]  # fmt: skip
    version = run(["valgrind", "--version"], repo, os.environ).out.strip()
    ran = perfgate(ctx, repo, "gate", "--base", "HEAD", "--head", "HEAD", "--plan")
    ok = ran.code == 0 and "not installed" not in ran.text
    return [Row(
        "13", f"gate --base HEAD --head HEAD --plan on a snapshot of this checkout "
        f"(instruments wall+sim; {version})",
        "exit 0, a plan; no 'valgrind is not installed'",
        f"exit {ran.code}; {last_line(_plan_line(ran.out) if ran.code == 0 else ran.err)!r}",
        ok,
    )]  # fmt: skip


def _plan_line(text: str) -> str:
    """The plan's line of rounds and minutes."""
    lines = [line for line in text.splitlines() if line.startswith("budget")]
    return lines[0] if lines else "no plan printed"


# -- item 14: smaller ---------------------------------------------------------------------


def mode(path: Path) -> str:
    """``path``'s permission bits in octal, or 'missing'."""
    return oct(path.stat().st_mode & 0o777) if path.exists() else "missing"


def item_14(ctx: Ctx) -> list[Row]:
    """File modes, publish's errors, and the head's edits to the suites."""
    return [_modes_row(ctx), _missing_runs_row(ctx), _corrupt_file_row(ctx), _suite_edits_row(ctx)]


def _modes_row(ctx: Ctx) -> Row:
    repo = init_project(ctx, "item-14a")
    (repo / "pyproject.toml").chmod(0o644)
    old = os.umask(0o022)
    try:
        init = perfgate(ctx, repo, "init", "--no-workflows")
        ran, out = compare(ctx, repo.parent, compare_tree(repo.parent, ["plain"]), {})
    finally:
        os.umask(old)
    files = {"pyproject.toml": repo / "pyproject.toml", "report.md": out / "report.md"}
    modes = {
        name: mode(path) for name, path in (files | {"verdict.json": out / "verdict.json"}).items()
    }
    ok = init.code == 0 and ran.code == 0 and set(modes.values()) == {"0o644"}
    return Row("14a", "umask 022: init on a 0644 pyproject.toml; compare --report-dir",
               "every file 0644 (none 0600)", f"init exit {init.code}, compare exit {ran.code}; "
               f"modes {modes}", ok)  # fmt: skip


def _missing_runs_row(ctx: Ctx) -> Row:
    repo = init_project(ctx, "item-14b")
    missing = repo.parent / "no-such-runs"
    ran = perfgate(ctx, repo, "publish", "--gate-runs", str(missing))
    ok = (
        ran.code == 3
        and clean_error(ran)
        and str(missing) in ran.err
        and "make gate" not in ran.text
    )
    return Row("14b", "publish --gate-runs <a path that does not exist>",
               "exit 3 naming that path (not 'no results yet, run make gate')",
               f"exit {ran.code}; {last_line(ran.err)!r}", ok)  # fmt: skip


def _corrupt_file_row(ctx: Ctx) -> Row:
    repo = init_project(ctx, "item-14c")
    folder = compare_tree(repo.parent, ["plain"])
    (folder / "benchmarks.json").write_text("{not json")
    ran = perfgate(ctx, repo, "publish", "--results-dir", str(folder), "--html-dir",
                   str(repo.parent / "html"))  # fmt: skip
    own = str(folder / "benchmarks.json")
    other = [w for w in ran.err.split() if w.rstrip(":,.'\"").endswith("benchmarks.json")
             and own not in w]  # fmt: skip
    ok = ran.code == 3 and clean_error(ran) and own in ran.err and not other
    return Row("14c", "publish --results-dir R with a corrupt R/benchmarks.json",
               "exit 3 naming R/benchmarks.json, never a temporary copy",
               f"exit {ran.code}; names own file: {own in ran.err}; other copies named: "
               f"{other or 'none'}", ok)  # fmt: skip


def _suite_edits_row(ctx: Ctx) -> Row:
    ran, out, _, _ = hostile_gate(ctx)
    report = read(out / "report.md").replace("\\_", "_")  # markdown escapes undone
    notes = [line for line in report.splitlines() if "not measured" in line]
    ok = ran.code in (0, 1) and any("bench_tiny.py" in line for line in notes)
    return Row("14d", "the item-5 gate: the head also edits benchmarks/bench_tiny.py, the "
               "checkout (main) runs its own suites",
               "the report says the head's edits to the suites are not measured, naming the file",
               f"gate exit {ran.code}; {last_line(notes[0] if notes else 'no such note', 170)!r}",
               ok)  # fmt: skip
