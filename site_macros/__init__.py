"""mkdocs-macros module: define_env only registers (ARCHITECTURE.md §3). Logic lives in calc."""

from __future__ import annotations

import importlib.util
from typing import Any

from . import facts, filters, tables


def define_env(env: Any) -> None:
    """Register the site's macros and filters."""
    for module in (facts, filters, tables):
        module.register(env)
    from . import calibration_view  # perf (issue 15): calibration table and chart

    calibration_view.register(env)
    # site_macros/calculators.py belongs to the browser engineer; register it once it exists
    if importlib.util.find_spec(f"{__name__}.calculators") is not None:
        from . import calculators

        calculators.register(env)
