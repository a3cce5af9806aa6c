"""``perfgate explain``: where one sim case's counts moved between two commits, without
running the gate.

Each side is exported afresh (`perfgate.git.export_commit`), counted as the gate counts it
(`perfgate.sim.harness.measure`: one native pass, one valgrind process; the family's own
weights and warm-up, the JIT target of the base's ``[tool.perfgate.sim]``) with its
per-function data kept (`perfgate.sim.attribution.keep`) in the output folder; then the
two functions tables are diffed (`diff.attribute`), each kernel's code compared
(`code.compare`) and a differential flame graph drawn (`flame.render`). Everything is
written into a new output folder: ``base/`` and ``head/`` (the kept data, callgrind dumps
a user can open in KCachegrind), ``code/<kernel>.s.diff`` / ``.ll.diff`` for a kernel
whose machine code differs, ``flame.svg`` and ``explain.md`` (what is printed).

As in the gate, the policy is the base commit's and the base is the merge base of the two
commits.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from perfgate import git
from perfgate.atomic import check_output_dir, write_text_atomic
from perfgate.config import GateConfig
from perfgate.config_files import config_at_commit
from perfgate.errors import UserError
from perfgate.formats import asv_conf
from perfgate.sim import cost, harness
from perfgate.sim.attribution import code, diff, flame, keep, sides
from perfgate.sim.attribution.case import CaseName, parse_case, resolve
from perfgate.sim.attribution.table import FIGURES, FunctionsTable
from perfgate.sim.cost import EVENT_NAMES


@dataclass(frozen=True)
class Side:
    """One commit's count of the case: figures per call, functions table, the family's kept
    folder (`keep.family_name`)."""

    sha: str
    figures: Mapping[str, float]
    table: FunctionsTable
    folder: Path


@dataclass(frozen=True)
class Explanation:
    """What ``perfgate explain`` found for one case."""

    case: CaseName
    base: Side
    head: Side
    attribution: diff.Attribution
    code: tuple[code.CodeChange, ...]
    out: Path


def _import_env(export: Path, config: GateConfig, keep_dir: Path, repo: Path) -> dict[str, str]:
    env = dict(os.environ)
    roots = [str(p) for p in config.import_roots(export)]
    env["PYTHONPATH"] = os.pathsep.join(p for p in (*roots, env.get("PYTHONPATH", "")) if p)
    env.setdefault("NUMBA_CACHE_DIR", str(repo / ".cache" / "numba"))
    env[keep.PROFILES_VARIABLE] = str(keep_dir)
    env.pop("PERFGATE_BENCH", None)
    return env


@dataclass(frozen=True)
class Family:
    """What ``describe`` read of a sim family in a commit's own environment."""

    weights: tuple[int, ...]
    warmup: int
    param_names: tuple[str, ...]
    params: tuple[tuple[str, ...], ...]


def _family(root: tuple[str, Path], module: str, name: str, env: Mapping[str, str]) -> Family:
    """The family's weights, warm-up and parameters, read in the commit's own environment."""
    argv = [
        sys.executable,
        "-m",
        "perfgate.sim.attribution.describe",
        root[0],
        str(root[1]),
        module,
        name,
    ]
    done = subprocess.run(argv, env=dict(env), capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        tail = (done.stdout + done.stderr)[-2000:]
        raise UserError(f"explain: cannot import {module}.{name} at this commit:\n{tail}")
    data = json.loads(done.stdout.strip().splitlines()[-1])
    return Family(
        tuple(int(w) for w in data["weights"]),
        int(data["warmup"]),
        tuple(str(n) for n in data.get("param_names", ())),
        tuple(tuple(str(v) for v in values) for values in data.get("params", ())),
    )


def count_side(
    repo: Path, sha: str, case: CaseName, config: GateConfig, work: Path, out: Path
) -> Side:
    """Export ``sha``, count ``case`` there with its per-function data kept in ``out``."""
    export = git.export_commit(repo, sha, work)
    project = asv_conf.read_project(export, config.asv_config)
    bench = asv_conf.benchmark_dir(project.conf, project.path.parent)
    env = _import_env(export, config, out, repo)
    module = f"{bench.name}.{case.module}"
    family = _family((bench.name, bench), module, case.family, env)
    weights, params = family.weights, resolve(case, family.param_names, family.params)
    spec = harness.SimSpec(
        bench.name, str(bench), module, case.family,
        (harness.SimCase("case0000", params),), weights, family.warmup,
    )  # fmt: skip
    outcome = harness.measure(spec, env=env, target_mode=config.sim.target)
    if "case0000" not in outcome.events:
        why = outcome.skipped.get("case0000") or outcome.failed.get("case0000", "not counted")
        raise UserError(f"explain: the case was not counted at {sha[:12]}: {why}")
    figures = cost.per_call(outcome.events["case0000"], weights)
    kept = out / keep.family_name(module, case.family)
    folder = kept / "cases" / keep.case_slug(params)
    return Side(sha, figures, keep.load_table(folder), kept)


def compare_code(
    base: Path, head: Path, out: Path, kernels: frozenset[str]
) -> tuple[code.CodeChange, ...]:
    """The code of every kernel the case ran (``kernels``: its table's kernel labels) on
    both sides; the diffs of one whose machine code differs written into ``out/code``."""
    before, after = sides.code_texts(base), sides.code_texts(head)
    changes, diffs = code.compare_all(before, after, {k.split(" (")[0] for k in kernels})
    for name, text in diffs:
        write_text_atomic(out / "code" / name, text)
    return changes


def explain(
    repo: Path, base: str, head: str, case_text: str, out: Path, figure: str | None = None
) -> Explanation:
    """Count ``case_text`` at the merge base of ``base`` and ``head`` and at ``head``,
    and say where it moved (see the module); files go into the new folder ``out``."""
    case = parse_case(case_text)
    chosen = figure or case.figure or diff.FIGURE
    if chosen not in (*FIGURES, *EVENT_NAMES):
        raise UserError(
            f"--figure {chosen!r}: expected one of {', '.join((*FIGURES, *EVENT_NAMES))}"
        )
    check_output_dir(out, "--out", "explain's files")
    if out.exists() and any(out.iterdir()):
        raise UserError(
            f"--out {out}: not empty; expected a new folder (files are never overwritten)"
        )
    head_sha = git.resolve(repo, head)
    base_sha = git.merge_base(repo, git.resolve(repo, base), head_sha) or git.resolve(repo, base)
    config = config_at_commit(repo, base_sha)
    with tempfile.TemporaryDirectory(prefix="perfgate-explain-") as tmp:
        sides = [count_side(repo, sha, case, config, Path(tmp), out / name)
                 for sha, name in ((base_sha, "base"), (head_sha, "head"))]  # fmt: skip
    found = diff.attribute(sides[0].table, sides[1].table, chosen, config.sim.tolerance)
    kernels = sides[0].table.kernels | sides[1].table.kernels
    changes = compare_code(sides[0].folder, sides[1].folder, out, kernels)
    write_text_atomic(out / "flame.svg", flame.render(sides[0].table, sides[1].table, chosen))
    result = Explanation(case, sides[0], sides[1], found, changes, out)
    write_text_atomic(out / "explain.md", render(result))
    return result


def render(found: Explanation, limit: int = 12) -> str:
    """The explanation as markdown text."""
    a = found.attribution
    lines = [
        f"# {found.case.label()}",
        "",
        f"base {found.base.sha[:12]} -> head {found.head.sha[:12]}, per call:",
        "",
        "| figure | base | head | change |",
        "|---|---:|---:|---:|",
    ]
    for name in ("cycles", "instructions", "l1_misses", "ll_misses"):
        b, h = found.base.figures[name], found.head.figures[name]
        change = f"{(h / b - 1) * 100:+.2f}%" if b > 0 else "n/a"
        lines.append(f"| {name} | {b:,.0f} | {h:,.0f} | {change} |")
    lines += ["", f"**Where it moved** ({a.figure}): {a.sentence()}", ""]
    if a.moved:
        lines += [
            "| function | base | head | change | called from | from Python via |",
            "|---|---:|---:|---:|---|---|",
        ]
        for m in a.moved[:limit]:
            lines.append(
                f"| `{m.label}`{' (kernel)' if m.kernel else ''} | {m.base:,.0f} | {m.head:,.0f} "
                f"| {diff.compact(m.delta)} | {m.caller or ''} | {m.entry or ''} |"
            )
        if len(a.moved) > limit:
            lines.append(f"| {len(a.moved) - limit} more | | | | | |")
        lines.append("")
    lines += ["**Compiled kernels**:", ""]
    lines += [f"- {c.line()}" for c in found.code] or ["- no Numba kernel ran in the case"]
    for c in found.code:
        if c.changed and c.base and c.head:
            lines += [f"  - base: {c.base.line()}", f"  - head: {c.head.line()}"]
    lines += [
        "",
        f"Files in {found.out}: base/ and head/ (callgrind dumps for KCachegrind, functions "
        "tables, kernel maps, kernel code), code/*.diff, flame.svg.",
    ]
    return "\n".join(lines) + "\n"
