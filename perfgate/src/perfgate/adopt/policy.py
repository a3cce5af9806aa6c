"""The policy ``perfgate init`` writes: a commented ``[tool.perfgate]`` (or perfgate.toml)
rendered from what it found (`perfgate.adopt.survey`), and the text surgery that puts it
into an existing pyproject.toml without touching the rest of that file."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from perfgate import __version__
from perfgate.adopt.parity_trial import Trial
from perfgate.adopt.quick import QuickChoice
from perfgate.adopt.survey import PARITY_PLACEHOLDER, Family, Guess
from perfgate.config_costs import MeasuredCosts

TEMPLATES = Path(__file__).parent / "templates" / "init"
#: A table header of the gate's policy in pyproject.toml: [tool.perfgate], its sub-tables
#: and arrays of tables ([[tool.perfgate.baseline]]).
_OWN_HEADER = re.compile(r"^\s*\[\[?\s*tool\.perfgate\s*(\.|\])")
_ANY_HEADER = re.compile(r"^\s*\[")
#: The first line of what init writes (the comment block above the table is removed with it).
MARKER = "# perfgate: the performance gate's policy"


@dataclass(frozen=True)
class Proposal:
    """Everything the written policy says, each guess with its reason."""

    asv_config: str
    build: Guess
    parity: Guess
    families: tuple[Family, ...]
    blocking: tuple[str, ...]
    thresholds: tuple[tuple[str, float], ...] = ()
    thresholds_reason: str = ""
    #: ("wall",) when no benchmark is in the sim instrument's family; None: the default
    instruments: Guess = field(default_factory=lambda: Guess(None, "the default"))
    #: the parity subset of --quick (value None: the full suite) and a commented example
    #: in the project's layout
    quick_parity: Guess = field(default_factory=lambda: Guess(None, ""))
    quick_parity_example: str = '["{python}", "-m", "pytest", "-x", "-q", "tests/test_core.py"]'
    #: what one run of the suite at HEAD measured (None: not run, ``perfgate init
    #: --no-measure``): the quick selection and budget, the costs, the broken benchmarks
    quick: QuickChoice | None = None
    costs: MeasuredCosts | None = None
    broken: tuple[tuple[str, str], ...] = ()
    #: the one run of parity_command / quick_parity_command at HEAD (None: not run,
    #: ``perfgate init --no-measure``): only a command seen to pass is written
    parity_trial: Trial | None = None
    quick_parity_trial: Trial | None = None

    @property
    def benchmark_count(self) -> int:
        """How many benchmarks asv discovered."""
        return sum(f.count for f in self.families)

    @property
    def parity_written(self) -> tuple[str, ...]:
        """The parity_command the policy sets: the one found, unless init ran it and it did
        not pass (then the placeholder `perfgate doctor` names, never a failing command)."""
        trial = self.parity_trial
        return self.parity.value if trial is None or trial.passed else PARITY_PLACEHOLDER

    @property
    def quick_written(self) -> bool:
        """True when the policy sets the quick_parity_command found (init did not run it,
        or saw it pass)."""
        trial = self.quick_parity_trial
        return bool(self.quick_parity.value) and (trial is None or trial.passed)


def trial_lines(trial: Trial | None) -> list[str]:
    """The comment lines of a parity command's run at HEAD: how it ended and, when it did
    not pass, its own last lines (already redacted)."""
    if trial is None:
        return []
    at = f" {trial.sha[:12]}" if trial.sha else ""
    head = f"perfgate init ran it once at HEAD{at}: {trial.summary()}"
    if trial.passed:
        return [head + "."]
    return [head + ",", "so it is not written; its output ended:"] + [
        "  " + line for line in trial.error.splitlines()
    ]


def toml_value(value: object) -> str:
    """``value`` as TOML: literal strings where they can be (regexes stay readable)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    text = str(value)
    if "'" not in text and not any(ord(c) < 32 for c in text):
        return f"'{text}'"
    return json.dumps(text)  # a TOML basic string: JSON's escapes are TOML's


def render_policy(proposal: Proposal, in_pyproject: bool) -> str:
    """The policy's text: the ``[tool.perfgate]`` table for pyproject.toml, or the same keys
    at the top level for perfgate.toml."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
    )
    env.filters["toml"] = toml_value
    env.filters["trial_lines"] = trial_lines
    table = "tool.perfgate" if in_pyproject else ""
    text = env.get_template("policy.toml.j2").render(p=proposal, table=table, version=__version__)
    return re.sub(r"\n{3,}", "\n\n", text)


def without_policy(pyproject: str) -> str:
    """pyproject.toml's text without its ``[tool.perfgate]`` tables (and the comment block
    init wrote above them): what ``--force`` replaces."""
    lines = pyproject.splitlines(keepends=True)
    kept: list[str] = []
    inside = False
    for line in lines:
        if _ANY_HEADER.match(line):
            inside = bool(_OWN_HEADER.match(line))
            if inside:
                _drop_marker_block(kept)
        if not inside:
            kept.append(line)
    return "".join(kept).rstrip("\n") + "\n" if kept else ""


def _drop_marker_block(kept: list[str]) -> None:
    """Remove the comment lines right above a table when they are init's block."""
    block = 0
    while block < len(kept) and kept[len(kept) - 1 - block].lstrip().startswith("#"):
        block += 1
    if block and kept[len(kept) - block].startswith(MARKER):
        del kept[len(kept) - block :]


def has_policy(pyproject: str) -> bool:
    """True when pyproject.toml has a ``[tool.perfgate]`` table already."""
    return any(_OWN_HEADER.match(line) for line in pyproject.splitlines())


def with_policy(pyproject: str, policy: str) -> str:
    """pyproject.toml's text with ``policy`` in place of any ``[tool.perfgate]`` tables,
    appended at its end."""
    rest = without_policy(pyproject).rstrip("\n")
    return (rest + "\n\n" if rest else "") + policy
