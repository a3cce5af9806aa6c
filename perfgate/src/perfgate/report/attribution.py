"""The report's "where it moved" section (pure): each sim case beyond its threshold, the
function or kernel that moved most named first, the functions that moved, and the compiled
kernels it ran, those whose machine code differs first with both sides' summaries.

The attributions were decided by the compare stage (`perfgate.sim.attribution.findings`);
this module only shapes them for the templates, which escape every value (function names
come from the head's code: untrusted text).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field

from markupsafe import Markup

from perfgate.sim.attribution.diff import Moved, compact
from perfgate.sim.attribution.findings import CaseAttribution, slug_of

#: functions listed per case (the rest are counted)
LIMIT = 8
#: the folder next to the report that holds the attributed cases' files
ARTIFACTS = "attribution"


@dataclass(frozen=True)
class FunctionLine:
    """One function that moved, as a table row."""

    label: str
    kernel: bool
    base: str
    head: str
    change: str
    caller: str
    entry: str


@dataclass(frozen=True)
class KernelLine:
    """One compiled kernel the case ran: what changed, and each side's summary if it did."""

    kernel: str
    what: str
    base: str
    head: str


@dataclass(frozen=True)
class AttributionView:
    """One attributed case, ready to draw."""

    case: str
    verdict: str
    blocking: bool
    state: str
    figure: str
    #: the case's change of the figure, all functions together (``+1.23%``)
    change: str
    #: the function or kernel that moved most, and by how much (empty: none)
    first: str
    first_kernel: bool
    first_delta: str
    functions: tuple[FunctionLine, ...]
    more: int
    unchanged: tuple[str, ...]
    kernels: tuple[KernelLine, ...]
    #: why the case has no attribution (state "missing")
    missing: str
    tolerance: str
    #: the differential flame graph, inline SVG (drawn by `perfgate.sim.attribution.flame`,
    #: which escapes every name; empty: none)
    flame: Markup = field(default_factory=Markup)
    #: the files written next to the report for this case (paths relative to it)
    files: tuple[str, ...] = ()
    #: the wall-clock regression this sim case's counts explain (empty: the sim row's own)
    twin: str = ""
    #: the ``perfgate explain`` command that reproduces this table (empty: no commits)
    explain: str = ""


def _function(m: Moved) -> FunctionLine:
    return FunctionLine(
        m.label,
        m.kernel,
        f"{m.base:,.0f}",
        f"{m.head:,.0f}",
        compact(m.delta),
        m.caller or "",
        m.entry or "",
    )


def _kernels(found: CaseAttribution) -> tuple[KernelLine, ...]:
    ordered = sorted(found.code, key=lambda c: (not c.changed, c.kernel))
    out = []
    for c in ordered:
        shown = c.changed and c.base is not None and c.head is not None
        base = c.base.line() if shown and c.base else ""
        head = c.head.line() if shown and c.head else ""
        out.append(KernelLine(c.kernel, c.what(), base, head))
    return tuple(out)


def _case(found: CaseAttribution) -> str:
    family = found.key.benchmark.rsplit(".", 1)[0]
    params = found.key.params_text()
    return f"{family}({params})" if params else family


def folder_of(index: int, found: CaseAttribution) -> str:
    """The folder of a case's files next to the report: ``attribution/<n>-<case>``."""
    return f"{ARTIFACTS}/{index + 1:02d}-{slug_of(found.key)}"


def files_of(index: int, found: CaseAttribution) -> dict[str, str]:
    """The files of one attributed case, by path relative to the report folder: its flame
    graph (``flame.svg``) and the assembly and IR diffs of each kernel whose code differs."""
    folder = folder_of(index, found)
    files = {f"{folder}/flame.svg": found.flame} if found.flame else {}
    files.update({f"{folder}/{name}": text for name, text in found.diffs})
    return files


def explain_command(found: CaseAttribution, base: str, head: str) -> str:
    """``perfgate explain`` of the case between the run's commits, its figure named: the
    command that counts the case again and prints this table (empty: no commits)."""
    if not base or not head:
        return ""
    argv = ["perfgate", "explain", "--base", base, "--head", head, found.key.label()]
    if found.attribution is not None:
        argv += ["--figure", found.attribution.figure]
    return shlex.join(argv)


def view(
    found: CaseAttribution, index: int = 0, base: str = "", head: str = ""
) -> AttributionView:
    """One case's view (see the module); ``index``: its place in the report's list;
    ``base``, ``head``: the commits compared."""
    a = found.attribution
    change = a.change if a is not None else None
    first = found.first
    return AttributionView(
        case=_case(found),
        verdict=found.verdict.symbol,
        blocking=found.blocking,
        state=found.state.value,
        figure=a.figure if a is not None else "",
        change=f"{change * 100:+.2f}%" if change is not None else "n/a",
        first=first.label if first else "",
        first_kernel=bool(first and first.kernel),
        first_delta=compact(first.delta) if first else "",
        functions=tuple(_function(m) for m in (a.moved[:LIMIT] if a else ())),
        more=max(0, len(a.moved) - LIMIT) if a else 0,
        unchanged=a.unchanged_kernels if a else (),
        kernels=_kernels(found),
        missing=found.missing,
        tolerance=f"{a.tolerance:.2%}" if a is not None else "",
        flame=Markup(found.flame),  # trusted: drawn by flame.render, names escaped
        files=tuple(files_of(index, found)),
        twin=found.twin_of.label() if found.twin_of is not None else "",
        explain=explain_command(found, base, head),
    )


def views(
    found: Sequence[CaseAttribution], base: str = "", head: str = ""
) -> list[AttributionView]:
    """Every attributed case's view, in the compare stage's order (blocking first)."""
    return [view(f, i, base, head) for i, f in enumerate(found)]


def artifact_files(found: Sequence[CaseAttribution]) -> dict[str, str]:
    """Every attributed case's files (`files_of`), for the publisher to write."""
    files: dict[str, str] = {}
    for i, f in enumerate(found):
        files.update(files_of(i, f))
    return files
