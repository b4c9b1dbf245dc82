"""mkdocs-macros module: define_env only registers (ARCHITECTURE.md §3). Logic lives in calc."""

from __future__ import annotations

from typing import Any

from . import calculator_widget, facts, filters, provenance, tables


def define_env(env: Any) -> None:
    """Register the site's macros and filters."""
    for module in (facts, filters, tables, provenance, calculator_widget):
        module.register(env)
    from . import calibration_view  # perf (issue 15): calibration table and chart

    calibration_view.register(env)
