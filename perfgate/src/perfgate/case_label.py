"""A case named as perfgate prints it, read back (pure): the report's and verdict.json's
``bench(name=value, ...)`` (`perfgate.model.CaseKey.label`) and asv's own
``bench('value', 2048)``, so a reviewer can paste either into a command that takes a case."""

from __future__ import annotations

import ast
import re
from typing import Any

from perfgate.model import CaseKey

_CALL = re.compile(r"^(?P<bench>[A-Za-z_][\w.]*)\((?P<args>.*)\)$", re.DOTALL)
_NAMED = re.compile(r"^(?P<name>[A-Za-z_]\w*)=(?P<value>.*)$", re.DOTALL)


def parse_label(text: str) -> CaseKey | None:
    """The case of a ``bench(name=value, ...)`` label (values as display text); None when
    ``text`` is not one."""
    match = _CALL.match(text.strip())
    if match is None:
        return None
    args = match.group("args")
    items = []
    for part in args.split(", ") if args else ():
        named = _NAMED.match(part)
        if named is None:
            return None
        items.append((named.group("name"), named.group("value")))
    return CaseKey(match.group("bench"), tuple(items)) if items else None


def parse_asv_name(text: str) -> tuple[str, tuple[Any, ...]] | None:
    """(benchmark, parameter values) of asv's ``bench('value', 2048)``; None when ``text``
    is not one (its arguments must be Python literals)."""
    match = _CALL.match(text.strip())
    if match is None:
        return None
    if not match.group("args").strip():
        return match.group("bench"), ()
    try:
        values = ast.literal_eval(f"({match.group('args')},)")
    except (ValueError, SyntaxError):
        return None
    return match.group("bench"), tuple(values)


def selection_regex(text: str) -> str | None:
    """An anchored regex selecting exactly the case ``text`` names, in either form, among
    asv's selection names (`perfgate.formats.benchmarks_json.case_names`); None when
    ``text`` names no case (it is then a regex of its own)."""
    label = parse_label(text)
    if label is not None:
        quote = "['\"]?"
        values = ", ".join(f"{quote}{re.escape(v)}{quote}" for _n, v in label.params)
        return f"^{re.escape(label.benchmark)}\\({values}\\)$"
    asv = parse_asv_name(text)
    if asv is not None and asv[1]:
        values = ", ".join(re.escape(repr(v)) for v in asv[1])
        return f"^{re.escape(asv[0])}\\({values}\\)$"
    return None
