"""tests/seed_paths.py finds the seed documents from a worktree and fails (not skips) under
CI=true when they are missing, so the seed-quote tests cannot silently stop running."""

from __future__ import annotations

from pathlib import Path

import pytest
import seed_paths


def test_seeds_are_found_here() -> None:
    found = seed_paths.seeds_dir()
    if found is None:
        pytest.skip("no seeds on this machine")
    assert len(sorted(found.glob("00[0-3]_*.txt"))) == 4


def test_missing_seeds_fail_under_ci(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(seed_paths, "_candidates", lambda: [tmp_path / "none"])
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception):
        seed_paths.require_seeds()
    monkeypatch.setenv("CI", "false")
    with pytest.raises(pytest.skip.Exception):
        seed_paths.require_seeds()


def test_env_var_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "000_x.txt").write_text("seed", encoding="utf-8")
    monkeypatch.setenv("NFG_SEEDS_DIR", str(tmp_path))
    assert seed_paths.seeds_dir() == tmp_path
