"""Items 1-4, secrets: a token in a stored param must not reach a watch issue or its state
(1), a short database password must not wreck the report (2), a token split or base64-encoded
must not reach any output or the PR comment (3), and a token GitHub rejects must give doctor a
problem, not a traceback (4). Also the stored-results helpers item 14 reuses."""

from __future__ import annotations

import base64
import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import pg_results_factory as results
from gh_env import TOKEN, actions_env

from .harness import Ctx, Ran, Row, fake_github, git, new_repo, perfgate, write_files
from .judging import TRACEBACK, last_line, leaks, mask
from .tiny_project import BENCH, policy, read, tiny_files


def history(root: Path, n: int = 12) -> tuple[Path, list[str]]:
    """A repository of ``n`` commits on main and its bare ``origin``."""
    repo = new_repo(root / "repo", {"step.txt": "1\n"})
    commits = [git(repo, "rev-parse", "HEAD")]
    for k in range(2, n + 1):
        write_files(repo, {"step.txt": f"{k}\n"})
        git(repo, "commit", "-qam", f"step {k}")
        commits.append(git(repo, "rev-parse", "HEAD"))
    subprocess.run(["git", "init", "-q", "--bare", str(root / "remote.git")], check=True)
    git(repo, "remote", "add", "origin", str(root / "remote.git"))
    return repo, commits


def store_results(root: Path, bench: results.Bench, levels: Mapping[str, float]) -> Path:
    """asv results of ``bench`` (every combination) at commit -> level, 20 samples each."""
    folder = root / "results"
    results.write_benchmarks_json(folder, [bench])
    results.write_machine_json(folder)
    combos = len(bench.combos())
    for sha, level in levels.items():
        samples = [level * (1.0 + 0.001 * i) for i in range(-10, 10)]
        results.write_result(folder, sha, [bench], {bench.name: [samples] * combos})
    return folder


def watch_state(remote: Path) -> str:
    """Every watch state file on the remote's perf-results branch, joined."""
    names = git(remote, "ls-tree", "-r", "--name-only", "perf-results").split()
    return "".join(
        git(remote, "show", f"perf-results:{n}") for n in names if n.startswith("watch/")
    )


def item_1(ctx: Ctx) -> list[Row]:
    """watch --alert-suspected with GITHUB_TOKEN=T and a stored param holding T."""
    root = ctx.folder("item-01")
    repo, commits = history(root)
    bench = results.Bench(BENCH, ("token",), ((f"k={TOKEN}",),))
    levels = {commits[k - 1]: (1.08 if k >= 7 else 1.0) for k in (1, 4, 8, 12)}
    folder = store_results(root, bench, levels)
    with fake_github() as server:
        args = ["watch", "--results", str(folder), "--repo", str(repo), "--ref", "main"]
        args += ["--config", str(repo / "pyproject.toml"), "--alert-suspected"]
        ran = perfgate(ctx, repo, *args, env=actions_env(server))
        issues = list(server.fake.issues.values())
    texts = {"stdout": ran.out, "stderr": ran.err, "state": watch_state(root / "remote.git")}
    for i, issue in enumerate(issues, start=1):
        texts |= {f"issue{i}.title": issue["title"], f"issue{i}.body": issue["body"]}
    found = leaks([TOKEN], texts)
    title = mask(issues[0]["title"], TOKEN) if issues else "-"
    ok = ran.code == 0 and len(issues) == 1 and not found and "***" in issues[0]["title"]
    return [Row(
        "1", "watch --alert-suspected, GITHUB_TOKEN=T, a stored param 'k=T', 4 stored commits "
        "(+8% from 7), fake GitHub",
        "exit 0, one issue; no piece of T in stdout, issue title/body or watch/ state",
        f"exit {ran.code}; {len(issues)} issue(s), title {title!r}; pieces of T in: "
        f"{found or 'none'}; state files {'present' if texts['state'] else 'none'}",
        ok,
    )]  # fmt: skip


def compare_tree(root: Path, values: Sequence[str]) -> Path:
    """Stored results of one benchmark whose param takes ``values``, base and head equal."""
    bench = results.Bench(BENCH, ("value",), (tuple(values),))
    return store_results(root, bench, {results.BASE_SHA: 1.0, results.HEAD_SHA: 1.0})


def compare(ctx: Ctx, root: Path, folder: Path, env: Mapping[str, str]) -> tuple[Ran, Path]:
    """``perfgate compare`` of the stored results (built-in policy); its report dir."""
    out = root / "report"
    args = ["compare", str(folder), "--base", results.BASE_SHA, "--head", results.HEAD_SHA]
    return perfgate(ctx, root, *args, "--defaults", "--report-dir", str(out), env=env), out


def item_2(ctx: Ctx) -> list[Row]:
    """DATABASE_URL with a one-character password: the report must survive it."""
    root = ctx.folder("item-02")
    url = "postgres://u:e@h/db"
    env = {"DATABASE_URL": url}
    ran, out = compare(ctx, root, compare_tree(root, [url, "plain"]), env)
    report = read(out / "report.md")
    keys = sorted(json.loads(read(out / "verdict.json") or "{}"))
    dry = perfgate(ctx, root, "post", "--pr", "1", "--sha", results.HEAD_SHA, "--report-dir",
                   str(out), "--dry-run", env=env)  # fmt: skip
    status = [line for line in dry.out.splitlines() if line.startswith("[dry-run] status")]
    starred = report.count("***")
    wrecked = [w for w in ("v***rdict", "***xit", "verdict None") if w in report + dry.text]
    ok = (
        ran.code == 0 and {"verdict", "exit_code"} <= set(keys) and "u:e@" not in ran.text + report
        and starred <= report.count("postgres://") and not wrecked and dry.code == 0
        and bool(status) and "success" in status[0]
    )  # fmt: skip
    return [Row(
        "2", f"DATABASE_URL={url}; compare (a param holding the URL), then post --dry-run",
        "exit 0; the password starred only inside the URL; verdict.json keys intact; post "
        "reads the verdict (pass)",
        f"compare exit {ran.code}; '***' x{starred} in report.md for "
        f"{report.count('postgres://')} URL(s); 'u:e@' shown: {'u:e@' in ran.text + report}; "
        f"keys {keys}; wrecked words {wrecked or 'none'}; post exit {dry.code}: "
        f"{last_line(status[0] if status else 'no status line', 110)!r}",
        ok,
    )]  # fmt: skip


def item_3(ctx: Ctx) -> list[Row]:
    """A token split by a newline, and its base64 form, in a benchmark param."""
    root = ctx.folder("item-03")
    b64 = base64.b64encode(TOKEN.encode()).decode()
    split = TOKEN[:14] + "\n" + TOKEN[14:]
    folder = compare_tree(root, [split, TOKEN[:20] + " " + TOKEN[20:], b64])
    with fake_github() as server:
        env = actions_env(server, GITHUB_SHA=results.HEAD_SHA)
        ran, out = compare(ctx, root, folder, env)
        post = perfgate(ctx, root, "post", "--pr", "1", "--report-dir", str(out), env=env)
        comments = [c["body"] for c in server.fake.comments.values()]
    texts = {"stdout": ran.out, "report.md": read(out / "report.md"),
             "report.html": read(out / "report.html"), "verdict.json": read(out / "verdict.json"),
             "stderr": ran.err + post.text, "comment": "".join(comments)}  # fmt: skip
    found = leaks([TOKEN, b64], texts)
    ok = ran.code == 0 and post.code == 0 and len(comments) == 1 and not found
    return [Row(
        "3", "GITHUB_TOKEN=T; compare with params 'T split by a newline', 'T split by a "
        "space' and base64(T); post the comment to fake GitHub",
        "exit 0, one comment; no 8-char piece of T or base64(T) in stdout, stderr, report "
        "files, comment",
        f"compare exit {ran.code}, post exit {post.code}, {len(comments)} comment(s); "
        f"pieces leaked in: {found or 'none'}",
        ok,
    )]  # fmt: skip


def item_4(ctx: Ctx) -> list[Row]:
    """doctor --only github with a token the API answers 401 to."""
    root = ctx.folder("item-04")
    repo = new_repo(root / "repo", tiny_files(policy(ctx.python)))
    with fake_github(token="ghs_someOtherTokenTheApiKnows0000") as server:
        ran = perfgate(ctx, repo, "doctor", "--only", "github", env=actions_env(server))
        statuses = sorted({r.status for r in server.fake.requests})
    problems = api_problems(ran, "401")
    ok = ran.code == 1 and bool(problems) and TRACEBACK not in ran.text
    return [Row(
        "4", "doctor --only github, GITHUB_TOKEN the fake API answers 401 to",
        "exit 1 with a problem naming the rejected token (401); no traceback",
        f"exit {ran.code}; API answered {statuses}; "
        f"{mask(last_line(problems[0] if problems else 'no problem names the 401'), TOKEN)!r}",
        ok,
    )]  # fmt: skip


def api_problems(ran: Ran, word: str) -> list[str]:
    """doctor's ``problem:`` lines about GitHub's API that hold ``word`` (a status, a cause):
    the project's other problems (no workflow yet) do not count."""
    lines = [line for line in ran.out.splitlines() if line.startswith("problem:")]
    return [line for line in lines if "GitHub variables" in line and word in line]
