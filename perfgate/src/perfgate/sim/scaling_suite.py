"""Where `SimScalingBenchmark` lived before the scaling instrument got its own folder
(`perfgate.sim.scaling.suite` is its home now): a suite written against this path keeps
being discovered after an upgrade of perfgate."""

from __future__ import annotations

from perfgate.sim.scaling.suite import SimScalingBenchmark, scaling_version

__all__ = ["SimScalingBenchmark", "scaling_version"]
