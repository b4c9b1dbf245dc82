"""Benchmark: full 3-language site build vs a plain Material build of the same Markdown.

Full: `mkdocs build` with mkdocs.yml as is (macros, hooks, i18n, search, calculator runtime).
Plain: the same config and pages with the macros plugin and every hook removed, so `{{ ... }}` and
`{% ... %}` stay in the pages as text (strict off: anchors made by macros do not exist there).
Both builds are run alternately, `--runs` times each, into fresh temporary directories; the script
prints the median wall times and their ratio (goal: full ≤ 1.5 × plain).

Usage: .venv/bin/python bench/bench_build.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from mkdocs.utils.yaml import yaml_load

ROOT = Path(__file__).resolve().parent.parent
PLAIN_CONFIG = ROOT / ".bench-plain-mkdocs.yml"


def plain_config_text() -> str:
    """mkdocs.yml without the macros plugin and without hooks, as a standalone config."""
    with (ROOT / "mkdocs.yml").open("rb") as handle:
        config = yaml_load(handle)
    config["plugins"] = [p for p in config["plugins"]
                         if not (isinstance(p, dict) and "macros" in p) and p != "macros"]
    config["hooks"] = []
    config["strict"] = False
    return yaml.safe_dump(config, allow_unicode=True, sort_keys=False)


def build_seconds(config: Path, site_url: str) -> float:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "SITE_URL": site_url}
    with tempfile.TemporaryDirectory(prefix="nfg-bench-") as site_dir:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config),
                        "--site-dir", site_dir], cwd=ROOT, env=env, check=True,
                       capture_output=True)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    site_url = "http://127.0.0.1:8000/nfg/"
    PLAIN_CONFIG.write_text(plain_config_text(), "utf-8")
    try:
        build_seconds(ROOT / "mkdocs.yml", site_url)  # warm-up: wheel cache, bytecode, page cache
        build_seconds(PLAIN_CONFIG, site_url)
        full, plain = [], []
        for _ in range(args.runs):
            full.append(build_seconds(ROOT / "mkdocs.yml", site_url))
            plain.append(build_seconds(PLAIN_CONFIG, site_url))
    finally:
        PLAIN_CONFIG.unlink(missing_ok=True)
    full_s, plain_s = statistics.median(full), statistics.median(plain)
    print(f"runs: {args.runs} each, alternating, after one warm-up build of each")
    print(f"full build (macros + hooks + i18n, 3 languages): median {full_s:.2f} s "
          f"(min {min(full):.2f}, max {max(full):.2f})")
    print(f"plain Material build (no macros, no hooks):      median {plain_s:.2f} s "
          f"(min {min(plain):.2f}, max {max(plain):.2f})")
    print(f"ratio full / plain: {full_s / plain_s:.2f}x (goal <= 1.5x)")


if __name__ == "__main__":
    main()
