"""``python -m perfgate.sim.attribution.describe ROOT_NAME ROOT_PATH MODULE CLASS``: a sim
family's measured calls (weights and warm-up) and its parameters (names, and each one's
values as asv records them: their reprs), as JSON on stdout.

Run in the commit's own environment (its export first on ``PYTHONPATH``) by ``perfgate
explain``, which must count a case as the family does without importing the commit's code
into its own process.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from perfgate.sim.child import import_suite


def parameters(family: Any) -> tuple[list[str], list[list[str]]]:
    """(names, value reprs per name) of an asv class; one list of values is asv's form of a
    single parameter."""
    params = list(getattr(family, "params", ()) or ())
    if params and not all(isinstance(p, list | tuple) for p in params):
        params = [params]
    names = list(getattr(family, "param_names", ()) or ())
    if len(names) != len(params):
        names = [f"param{i + 1}" for i in range(len(params))]
    return names, [[repr(v) for v in values] for values in params]


def main(argv: list[str]) -> int:
    """Print the family class's ``weights``, ``warmup``, ``param_names`` and ``params``;
    0 when printed."""
    root_name, root_path, module, name = argv
    family = getattr(import_suite(root_name, root_path, module), name)
    names, params = parameters(family)
    described = {
        "weights": list(family.sim_weights),
        "warmup": int(family.sim_warmup),
        "param_names": names,
        "params": params,
    }
    print(json.dumps(described))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
