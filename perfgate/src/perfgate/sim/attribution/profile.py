"""Callgrind's out-file format, read into per-function and per-call costs.

What is read (valgrind's "Callgrind Format Specification"): the ``events:`` and
``positions:`` header lines, the name specifications ``ob=``/``fl=``/``fi=``/``fe=``/
``fn=`` and their call targets ``cob=``/``cfi=``/``cfl=``/``cfn=`` (with name compression:
``(12) name`` defines id 12 of its kind, ``(12)`` refers to it; ``ob``/``cob`` share ids,
so do the file kinds, so do ``fn``/``cfn``), cost lines (positions, relative ``+n``/``-n``
or ``*`` when compressed, then one count per event, missing trailing counts being 0) and
``calls=`` lines, whose next cost line is the inclusive cost of those calls. Everything
else (jumps, totals, descriptions) is skipped.

A function is identified by its object and name: callgrind names code without a symbol
by its entry address (``0x...``), which is only unique with its object.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

#: (object, function name)
FunctionId = tuple[str, str]
_NAME_LINE = re.compile(r"^(ob|fl|fi|fe|fn|cob|cfi|cfl|cfn)=(.*)$")
_COMPRESSED = re.compile(r"^\((\d+)\)(?: (.*))?$")
_KIND = {"ob": "ob", "cob": "ob", "fn": "fn", "cfn": "fn"}
_TRIGGER = re.compile(r"^desc: Trigger: Client Request: (\S+)$")


@dataclass
class Call:
    """Calls from one function to another: how many, and their inclusive cost."""

    count: int = 0
    cost: list[int] = field(default_factory=list)


@dataclass
class Profile:
    """One dump: per function its own (exclusive) cost, per caller and callee the calls."""

    events: tuple[str, ...]
    own: dict[FunctionId, list[int]] = field(default_factory=dict)
    calls: dict[tuple[FunctionId, FunctionId], Call] = field(default_factory=dict)
    #: the client request's name of this dump (None: the dump at exit)
    trigger: str | None = None
    #: callgrind's ``summary:`` line (the counts the figures are made of) and ``totals:``
    #: line (the sum of every cost in the file; it differed from the summary by +0.56% in
    #: Ir on the motion_tracking hand-written case: the per-function costs follow totals)
    summary: list[int] | None = None
    totals: list[int] | None = None

    def total(self) -> list[int]:
        """The dump's cost: its summary line, else the sum of every function's own cost."""
        if self.summary is not None:
            return list(self.summary)
        out = [0] * len(self.events)
        for cost in self.own.values():
            _add(out, cost)
        return out


def _add(into: list[int], cost: list[int]) -> None:
    for i, value in enumerate(cost):
        into[i] += value


class _Names:
    """Name compression: one table of ids per kind."""

    def __init__(self) -> None:
        self.tables: dict[str, dict[str, str]] = {}

    def resolve(self, key: str, text: str) -> str:
        kind = _KIND.get(key, "file")
        match = _COMPRESSED.match(text)
        if match is None:
            return text
        table = self.tables.setdefault(kind, {})
        ident, name = match.group(1), match.group(2)
        if name is not None:
            table[ident] = name
            return name
        if ident not in table:
            raise ValueError(f"callgrind file: {key}=({ident}) used before it was defined")
        return table[ident]


def _counts(tokens: list[str], positions: int, events: int, line_no: int) -> list[int]:
    values = tokens[positions:]
    if len(tokens) < positions or len(values) > events:
        raise ValueError(f"callgrind file line {line_no}: bad cost line {' '.join(tokens)!r}")
    try:
        counts = [int(v) for v in values]
    except ValueError:
        raise ValueError(f"callgrind file line {line_no}: bad count in {tokens!r}") from None
    return counts + [0] * (events - len(counts))


def _lines(text: str) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            yield number, stripped


def parse(text: str) -> Profile:
    """One callgrind out file's per-function costs; a ValueError names the bad line."""
    return _Parser().run(text)


class _Parser:
    def __init__(self) -> None:
        self.names = _Names()
        self.positions = 1
        self.profile = Profile(events=())
        self.ob = self.fn = ""
        self.cob: str | None = None
        self.cfn = ""
        self.pending: int | None = None  # calls= count awaiting its cost line
        self.skip_next = False

    def run(self, text: str) -> Profile:
        for number, line in _lines(text):
            self.line(number, line)
        if not self.profile.events:
            raise ValueError("callgrind file without an events: line")
        self.check()
        return self.profile

    def check(self) -> None:
        """The own costs must add up to the file's ``totals:`` line, when it has one."""
        totals = self.profile.totals
        if totals is None:
            return
        summed = [0] * len(self.profile.events)
        for cost in self.profile.own.values():
            _add(summed, cost)
        if summed != totals + [0] * (len(summed) - len(totals)):
            raise ValueError(f"callgrind file: functions sum to {summed}, totals: {totals}")

    def line(self, number: int, line: str) -> None:
        if self.skip_next:
            self.skip_next = False
            return
        name = _NAME_LINE.match(line)
        if name is not None:
            self.name(name.group(1), self.names.resolve(name.group(1), name.group(2)))
        elif line[0].isdigit() or line[0] in "+-*":
            self.cost(number, line.split())
        elif line.startswith("calls="):
            self.pending = int(line[6:].split()[0])
        elif line.startswith(("jump=", "jcnd=")):
            self.skip_next = True
        else:
            self.header(line)

    def header(self, line: str) -> None:
        key, _, value = line.partition(":")
        if key == "events":
            self.profile.events = tuple(value.split())
        elif key == "positions":
            self.positions = len(value.split())
        elif key == "summary":
            self.profile.summary = [int(v) for v in value.split()]
        elif key == "totals":
            self.profile.totals = [int(v) for v in value.split()]
        else:
            trigger = _TRIGGER.match(line)
            if trigger is not None:
                self.profile.trigger = trigger.group(1)

    def name(self, key: str, value: str) -> None:
        if key == "ob":
            self.ob = value
        elif key == "fn":
            self.fn, self.cob = value, None
        elif key == "cob":
            self.cob = value
        elif key == "cfn":
            self.cfn = value

    def cost(self, number: int, tokens: list[str]) -> None:
        counts = _counts(tokens, self.positions, len(self.profile.events), number)
        caller = (self.ob, self.fn)
        if self.pending is None:
            _add(self.profile.own.setdefault(caller, [0] * len(counts)), counts)
            return
        callee = (self.cob if self.cob is not None else self.ob, self.cfn)
        call = self.profile.calls.setdefault((caller, callee), Call(0, [0] * len(counts)))
        call.count += self.pending
        _add(call.cost, counts)
        self.pending, self.cob = None, None
