"""asv's console output (``asv-output.txt`` beside each run's results): why a benchmark failed.

asv 0.6 writes a failed benchmark's result as ``null`` and keeps its error only in what it
prints (``asv run --show-stderr``, which the gate always passes)::

    [50.00%] ··· bench.time_plain_broken                                     failed
    [50.00%] ···· Traceback (most recent call last):
                    File "/.../bench.py", line 9, in time_plain_broken
                      np.zeros(3) + np.zeros(4)
                  ValueError: operands could not be broadcast together with shapes (3,) (4,)
                  asv: benchmark failed (exit status 1)

`failure_texts` turns that into one short line per failed benchmark (the exception, then
where it was raised), so a report can say what broke instead of pointing at a file. The
text is the project's own output: callers redact it (`perfgate.secrets.Redactor`) before it
leaves the process.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from perfgate.secrets import Redactor

#: The file each asv run's output tail is saved in (`perfgate.asv.side_run`).
OUTPUT_FILE = "asv-output.txt"
#: Longest error text kept per benchmark (characters).
MAX_TEXT = 300

_PREFIX = re.compile(r"^\[\s*\d+(?:\.\d+)?%\] (·+) ?")
#: A benchmark's name as asv prints it: whole, or cut from the left to fit its column
#: ("..." then the name's tail, e.g. ``...ColorSuiteCached.time_downgrade_to_eight_bit``).
NAME = r"(?:\.\.\.\S+|[A-Za-z_]\w*(?:\.\w+)+)"
_HEADER = re.compile(rf"^\[\s*\d+(?:\.\d+)?%\] ··· ({NAME})\s+(\S.*)$")
#: How asv marks a name it cut short.
CUT = "..."
_FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+), in (\S+)')
_ASV_NOTE = re.compile(r"^\s*asv: benchmark (failed|timed out)(.*)$")


def _blocks(output: str) -> dict[str, list[str]]:
    """The lines asv printed under each benchmark's ``··· name  status`` line (its status
    first), each prefix replaced by spaces so that indentation still nests; the first
    block of a name wins (asv prints a benchmark once per run)."""
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in output.splitlines():
        prefix = _PREFIX.match(line)
        header = _HEADER.match(line)
        if header and header.group(1) not in blocks:
            current = blocks[header.group(1)] = [header.group(2).strip()]
        elif header or line.startswith("·") or (prefix and len(prefix.group(1)) < 3):
            current = None
        elif current is not None:
            cut = prefix.end() if prefix else 0
            current.append(" " * cut + line[cut:])
    return blocks


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _exception(lines: list[str]) -> tuple[str, str]:
    """(the exception line of the first traceback in ``lines``, its innermost frame)."""
    start = next((i for i, x in enumerate(lines) if x.strip().startswith("Traceback")), None)
    if start is None:
        return "", ""
    depth = _indent(lines[start])
    frame = ""
    for line in lines[start + 1 :]:
        found = _FRAME.match(line)
        if found:
            path, number, func = found.groups()
            frame = f"{Path(path).name}, line {number}, in {func}"
        elif line.strip() and _indent(line) <= depth:
            return line.strip(), frame
    return "", frame


def _text(lines: list[str]) -> str | None:
    """One benchmark's error text, or None when its block shows no failure."""
    status = lines[0] if lines else ""
    failed = status == "failed" or any(
        _ASV_NOTE.match(x) or x.strip().startswith("Traceback") for x in lines
    )
    if not failed:
        return None
    error, frame = _exception(lines[1:])
    if not error:
        notes = [m.group(0).strip() for m in map(_ASV_NOTE.match, lines) if m]
        error = notes[0] if notes else "failed (asv printed no error text)"
        error = error.removeprefix("asv: ")
    text = f"{error} ({frame})" if frame else error
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def full_name(shown: str, names: Iterable[str]) -> str | None:
    """The benchmark asv printed as ``shown``: itself when whole; when asv cut it short
    ("...tail"), the one of ``names`` that ends with the tail, else None (an error text put
    on a benchmark it may not belong to is worse than none)."""
    if not shown.startswith(CUT):
        return shown
    hits = [n for n in names if n.endswith(shown[len(CUT) :])]
    return hits[0] if len(hits) == 1 else None


def failure_texts(output: str, names: Iterable[str] = ()) -> dict[str, str]:
    """Benchmark name -> a one-line account of why it failed, for every benchmark that
    ``output`` (one ``asv run --show-stderr``) shows failing; a name asv cut short is
    resolved against ``names`` (the run's benchmarks, `full_name`)."""
    known = tuple(names)
    out: dict[str, str] = {}
    for shown, lines in _blocks(output).items():
        text = _text(lines)
        name = full_name(shown, known) if text is not None else None
        if text is not None and name is not None:
            out.setdefault(name, text)
    return out


def read_failure_texts(
    folders: Iterable[Path], redactor: Redactor, names: Iterable[str] = ()
) -> dict[str, str]:
    """The failure texts of the asv runs saved in ``folders`` (each may hold an
    `OUTPUT_FILE`; missing or unreadable ones are skipped: the text is a courtesy, the
    verdict does not depend on it), redacted; the first folder that names a benchmark wins;
    ``names``: the run's benchmarks, for the names asv cut short."""
    known = tuple(names)
    found: dict[str, str] = {}
    for folder in folders:
        try:
            output = (folder / OUTPUT_FILE).read_text(errors="replace")
        except OSError:
            continue
        for name, text in failure_texts(output, known).items():
            found.setdefault(name, redactor.text(text))
    return found


def run_folders(run_dir: Path) -> list[Path]:
    """The folders of ``run_dir`` that hold an asv run's output, in name order."""
    try:
        return sorted(p.parent for p in run_dir.glob(f"*/{OUTPUT_FILE}"))
    except OSError:
        return []
