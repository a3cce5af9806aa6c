"""Term contracts: what a term reads, which parameters it takes, what code it contributes.

Everything here is a frozen dataclass so a resolved plan can be hashed, compared and shared.
A term definition carries two implementations of the same formula:

* ``numpy_fn(ctx)``: a vectorised NumPy function (the fallback runtime, and the oracle);
* ``emit(params)``: the per-env code the generator places into the fused kernel, as
  :class:`Fragment` s (named, so identical sub-expressions of different terms are emitted once)
  plus a value expression.

Code conventions inside fragments: the env index is ``i``; a loop over axis ``a`` uses the
index variable declared for ``a`` (see :class:`Axis`); an input ``x`` is the kernel argument
``in_x`` of shape ``(N, *shape)``; locals are the fragment names.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from termplan.arrays import is_real
from termplan.errors import TermPlanError

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_KEY = re.compile(r"^[a-z][a-z0-9_.]*$")

#: Stage in which fragments run before any loop, and after all loops.
ENV_STAGE = "env"
POST_STAGE = "post"


def check_identifier(what: str, name: str) -> str:
    """Require ``name`` to be a lower-case identifier (it becomes part of generated code)."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise TermPlanError(f"{what} {name!r}: expected a lower-case identifier [a-z][a-z0-9_]*")
    return name


class TermKind(enum.Enum):
    """Role of a term in the step: what the generator does with its value."""

    REWARD = "reward"
    OBSERVATION = "observation"
    TERMINATION = "termination"
    PREAMBLE = "preamble"


class ParamKind(enum.Enum):
    """Parameter value kinds; all become literals in the generated source."""

    FLOAT = "float"
    INT = "int"
    BOOL = "bool"
    FLOATS = "floats"
    INTS = "ints"


@dataclass(frozen=True)
class Axis:
    """A per-env loop the generator may emit, e.g. ``Axis("joint", 29, "j")``."""

    name: str
    extent: int
    var: str

    def __post_init__(self) -> None:
        check_identifier("axis", self.name)
        check_identifier("axis variable", self.var)
        if self.extent < 1:
            raise TermPlanError(f"axis {self.name!r}: extent must be >= 1, got {self.extent}")


@dataclass(frozen=True)
class InputSpec:
    """One per-env input array: shape ``(N, *shape)`` and an exact dtype.

    ``axis`` names the loop axis the first per-env dimension runs along, if any (so a
    ``(29,)`` joint array can be read inside the joint loop).
    """

    name: str
    shape: tuple[int, ...]
    dtype: str
    axis: str | None = None

    def __post_init__(self) -> None:
        check_identifier("input", self.name)
        if any(int(d) < 1 for d in self.shape):
            raise TermPlanError(f"input {self.name!r}: dims must be positive, got {self.shape}")
        kind = np.dtype(self.dtype).kind
        if kind not in "biuf":
            raise TermPlanError(
                f"input {self.name!r}: dtype must be numeric or bool, got {self.dtype}"
            )

    @property
    def width(self) -> int:
        """Number of scalars per env."""
        return math.prod(self.shape)


@dataclass(frozen=True)
class ParamSpec:
    """A named parameter with an optional default (``None`` means required)."""

    name: str
    kind: ParamKind
    default: Any = None

    def __post_init__(self) -> None:
        check_identifier("parameter", self.name)

    def coerce(self, term: str, value: Any) -> Any:
        """Return ``value`` as this kind's canonical Python value, or raise TermPlanError."""
        try:
            if self.kind is ParamKind.FLOAT:
                out: Any = _as_float(value)
                _require_finite(term, self.name, (out,))
            elif self.kind is ParamKind.INT:
                out = _as_int(value)
            elif self.kind is ParamKind.BOOL:
                if not isinstance(value, (bool, np.bool_)):
                    raise TypeError
                out = bool(value)
            elif self.kind is ParamKind.FLOATS:
                out = tuple(_as_float(v) for v in _sequence(value))
                _require_finite(term, self.name, out)
            else:
                out = tuple(_as_int(v) for v in _sequence(value))
        except TermPlanError:
            raise  # already says what is wrong ("must be finite")
        except (TypeError, ValueError):
            raise TermPlanError(
                f"term {term!r}: parameter {self.name!r} expected {self.kind.value}, got {value!r}"
            ) from None
        return out


def _as_float(value: Any) -> float:
    """A real number (Python or NumPy, not bool, not a string such as ``"0.25"``)."""
    if not is_real(value):
        raise TypeError
    return float(value)


def _sequence(value: Any) -> Any:
    """``value`` if it is a sequence of values (not a string, bytes or a mapping)."""
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        raise TypeError
    return value


def _as_int(value: Any) -> int:
    if isinstance(value, (bool, np.bool_)) or int(value) != value:
        raise TypeError
    return int(value)


def _require_finite(term: str, name: str, values: tuple[float, ...]) -> None:
    if not all(math.isfinite(v) for v in values):
        raise TermPlanError(f"term {term!r}: parameter {name!r} must be finite, got {values}")


@dataclass(frozen=True)
class Constant:
    """A module-level constant array of the generated source (Numba freezes it)."""

    name: str
    values: tuple[float, ...] | tuple[int, ...]
    dtype: str


@dataclass(frozen=True)
class Fragment:
    """Named code placed per stage of the env body; equal names are emitted once (CSE).

    ``lines`` maps a stage (``"env"``, ``"loop:<axis>"`` or ``"post"``) to source lines.
    ``needs`` names fragments this one reads; ``inputs`` names inputs it reads.
    """

    name: str
    lines: tuple[tuple[str, tuple[str, ...]], ...]
    needs: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ()
    constants: tuple[Constant, ...] = ()

    def stage_lines(self, stage: str) -> tuple[str, ...]:
        """The lines of ``stage`` (empty when the fragment has none there)."""
        return next((lines for s, lines in self.lines if s == stage), ())


def fragment(
    name: str,
    needs: tuple[str, ...] = (),
    inputs: tuple[str, ...] = (),
    constants: tuple[Constant, ...] = (),
    **stages: str | tuple[str, ...] | list[str],
) -> Fragment:
    """Build a :class:`Fragment`; keyword ``env``/``post``/``loop_<axis>`` give its lines."""
    lines = []
    for key, value in stages.items():
        stage = "loop:" + key[5:] if key.startswith("loop_") else key
        text = (value,) if isinstance(value, str) else tuple(value)
        lines.append((stage, text))
    return Fragment(name, tuple(lines), tuple(needs), tuple(inputs), tuple(constants))


@dataclass(frozen=True)
class VectorSource:
    """Scalars an observation term copies: ``width`` values per env.

    With ``axis`` set, one loop iteration yields ``per_iter`` values; ``element`` is a
    template using ``{c}`` (component in the iteration) and the axis variable. Without an
    axis the source is read at env level and ``{c}`` runs over ``0..width-1``.
    """

    name: str
    width: int
    element: str
    axis: str | None = None
    per_iter: int = 1
    needs: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_identifier("source", self.name)
        for field_name in ("width", "per_iter"):
            value = getattr(self, field_name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise TermPlanError(
                    f"source {self.name!r}: {field_name} must be an integer >= 1, got {value!r}"
                )


@dataclass(frozen=True)
class TermCode:
    """What a term contributes to the kernel: its value expression and what that reads.

    ``needs`` names fragments (shared, from the registry or a preamble, or the term's own
    parameterised ``fragments``; a name provided twice must carry identical code).
    """

    needs: tuple[str, ...] = ()
    value: str = ""
    inputs: tuple[str, ...] = ()
    fragments: tuple[Fragment, ...] = ()


@dataclass(frozen=True)
class NumpyContext:
    """Arguments of a NumPy term implementation: bound inputs, parameters and a memo dict.

    ``memo`` is shared by all terms of one execution, so derived arrays (e.g. a preamble's
    transforms) are computed once per step.
    """

    inputs: Mapping[str, np.ndarray]
    params: Mapping[str, Any]
    num_envs: int
    memo: dict[str, Any] = field(default_factory=dict)


EmitFn = Callable[[Mapping[str, Any]], TermCode]
NumpyFn = Callable[[NumpyContext], np.ndarray]


@dataclass(frozen=True)
class TermDefinition:
    """A registered term implementation.

    * REWARD: ``numpy_fn`` returns float64 ``(N,)``; ``emit`` gives a float expression.
    * TERMINATION: ``numpy_fn`` returns bool ``(N,)``; ``emit`` gives a bool expression.
    * OBSERVATION: copies ``sources`` (vector source names) times the ``multiplier``
      parameter; ``numpy_fn`` returns ``(N, width)``; ``emit`` is unused.
    * PREAMBLE: provides ``fragments`` other terms may need; ``numpy_fn`` fills ``ctx.memo``.
    """

    key: str
    kind: TermKind
    inputs: tuple[InputSpec, ...]
    numpy_fn: NumpyFn
    parameters: tuple[ParamSpec, ...] = ()
    emit: EmitFn | None = None
    sources: tuple[str, ...] = ()
    fragments: tuple[Fragment, ...] = ()
    version: int = 1

    def __post_init__(self) -> None:
        if not _KEY.match(self.key):
            raise TermPlanError(f"term key {self.key!r}: expected dotted lower-case identifiers")
        names = [p.name for p in self.parameters]
        if len(set(names)) != len(names):
            raise TermPlanError(f"term key {self.key!r}: duplicate parameter names {names}")
        if self.kind in (TermKind.REWARD, TermKind.TERMINATION) and self.emit is None:
            raise TermPlanError(f"term key {self.key!r}: {self.kind.value} terms need emit")
        if self.kind is TermKind.OBSERVATION and not self.sources:
            raise TermPlanError(f"term key {self.key!r}: observation terms need sources")


@dataclass(frozen=True)
class TermConfig:
    """One plan entry: instance ``name``, definition ``key``, ``scale`` and parameters.

    Observation terms name their output ``group`` (e.g. ``"obs"``/``"critic"``) and use
    scale 1 (0 drops them), like preambles; termination scales are 0 or 1.
    """

    name: str
    key: str
    scale: float = 1.0
    parameters: Mapping[str, Any] = field(default_factory=dict)
    group: str | None = None

    def __hash__(self) -> int:
        items = tuple(sorted(self.parameters.items()))
        return hash((self.name, self.key, self.scale, items, self.group))
