"""``python -m perfgate.sim.attribution.describe ROOT_NAME ROOT_PATH MODULE CLASS``: a sim
family's measured calls (weights and warm-up), as JSON on stdout.

Run in the commit's own environment (its export first on ``PYTHONPATH``) by ``perfgate
explain``, which must count a case as the family does without importing the commit's code
into its own process.
"""

from __future__ import annotations

import json
import sys

from perfgate.sim.child import import_suite


def main(argv: list[str]) -> int:
    """Print ``{"weights": [...], "warmup": n}`` of the family class; 0 when printed."""
    root_name, root_path, module, name = argv
    family = getattr(import_suite(root_name, root_path, module), name)
    print(json.dumps({"weights": list(family.sim_weights), "warmup": int(family.sim_warmup)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
