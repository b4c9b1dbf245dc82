"""MkDocs hook: refuse to build from data that does not check.

on_config runs calc.data_check over the whole data tree (data/*.toml, data/sources, data/i18n; or
$NFG_DATA_DIR) before anything else and fails the build with one line per fault, each naming file,
record and field (syntax errors: line and column). Without this, a bad record could reach a page or
the calc wheel (e.g. a NaN price printed as "$NaN.0000/h").
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

MAX_LINES = 40


def data_dir() -> Path:
    override = os.environ.get("NFG_DATA_DIR")
    return Path(override).resolve() if override else ROOT / "data"


@event_priority(100)  # before the wheel build and the macros
def on_config(config: Any) -> Any:
    from calc.data_check import check_dir

    faults = check_dir(str(data_dir()))
    if faults:
        lines = [fault.message() for fault in faults[:MAX_LINES]]
        if len(faults) > MAX_LINES:
            lines.append(f"... and {len(faults) - MAX_LINES} more")
        raise PluginError(
            f"{len(faults)} data fault(s) in {data_dir()}:\n" + "\n".join(lines)
        )
    return config
