"""Where the seed documents are: `shared/seeds` beside the repository (the CI layout:
<dir>/<repo> and <dir>/shared), found robustly from a git worktree too.

Order: $NFG_SEEDS_DIR; `shared/seeds` beside the repository root or any of its ancestors
(/work/wt/present -> /work/shared/seeds); beside the main checkout of this worktree
(`git rev-parse --git-common-dir`). Under CI=true missing seeds fail the tests, never skip.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SEEDS = Path("shared") / "seeds"


def _candidates() -> list[Path]:
    found: list[Path] = []
    if os.environ.get("NFG_SEEDS_DIR"):
        found.append(Path(os.environ["NFG_SEEDS_DIR"]))
    found.extend(parent / SEEDS for parent in ROOT.parents)
    try:
        common = subprocess.run(["git", "rev-parse", "--path-format=absolute",
                                 "--git-common-dir"], cwd=ROOT, capture_output=True, text=True,
                                check=False, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        common = ""
    if common:
        main_checkout = Path(common).parent
        found.extend(parent / SEEDS for parent in (main_checkout, *main_checkout.parents))
    return found


def seeds_dir() -> Path | None:
    """The seed directory (one holding 000_*.txt), or None."""
    for candidate in _candidates():
        if candidate.is_dir() and any(candidate.glob("000_*.txt")):
            return candidate
    return None


def require_seeds() -> Path:
    """The seed directory; skips when absent locally, fails under CI=true."""
    found = seeds_dir()
    if found is None:
        message = f"seed documents not found (looked in {[str(c) for c in _candidates()]})"
        if os.environ.get("CI") == "true":
            pytest.fail(message + " and CI=true: the seed-quote tests must run")
        pytest.skip(message)
    return found
