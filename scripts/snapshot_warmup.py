"""Run inside Pyodide (Node) before the memory snapshot is taken (scripts/build_snapshot.mjs).

Everything imported or cached here is in the snapshot: every calc module, the presenter, and one
presentation per calculator, mode and language (data and translation tables parsed and cached).
Leaves no names behind except the modules themselves.
"""

import importlib
import json  # noqa: F401 - used by the worker's bridge
import pkgutil

import calc
import calc.api
import calc.display
from calc.display import calculators, presenter
from calc.display.numbers import LANGS

for _module in pkgutil.walk_packages(calc.__path__, "calc."):
    if _module.name not in ("calc.__main__", "calc.cli"):
        importlib.import_module(_module.name)

for _spec in calculators.CALCULATORS.values():
    for _mode in _spec.modes:
        for _lang in LANGS:
            presenter.present({"calculator": _spec.name, "values": {"mode": _mode.id}}, _lang)

del _module, _spec, _mode, _lang
