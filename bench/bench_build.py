"""Benchmark: full 3-language site build vs a plain Material build of the same Markdown.

Full: `mkdocs build` with mkdocs.yml as is (macros, hooks, i18n, search, calculator runtime).
Plain: the same config and pages with the macros plugin and every hook removed, so `{{ ... }}` and
`{% ... %}` stay in the pages as text (strict off: anchors made by macros do not exist there).
Both builds are run alternately, `--runs` times each, into fresh temporary directories; the script
prints the median wall and CPU (user + sys) times and their ratios (goal: full ≤ 1.5 × plain).
CPU time is the steadier figure on a shared machine; wall time is what a reader waits for.

Usage: .venv/bin/python bench/bench_build.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import resource
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


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def build_seconds(config: Path, site_url: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one build into a fresh directory."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "SITE_URL": site_url}
    with tempfile.TemporaryDirectory(prefix="nfg-bench-") as site_dir:
        cpu_before, start = _children_cpu_s(), time.perf_counter()
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config),
                        "--site-dir", site_dir], cwd=ROOT, env=env, check=True,
                       capture_output=True)
        return time.perf_counter() - start, _children_cpu_s() - cpu_before


def _summary(label: str, samples: list[float]) -> str:
    return (f"{label}: median {statistics.median(samples):.2f} s "
            f"(min {min(samples):.2f}, max {max(samples):.2f})")


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
    print(f"runs: {args.runs} each, alternating, after one warm-up build of each")
    for index, kind in ((0, "wall"), (1, "CPU ")):
        full_s = [sample[index] for sample in full]
        plain_s = [sample[index] for sample in plain]
        print(_summary(f"full build  (macros + hooks + i18n, 3 languages), {kind}", full_s))
        print(_summary(f"plain build (Material, no macros, no hooks),     {kind}", plain_s))
        ratio = statistics.median(full_s) / statistics.median(plain_s)
        print(f"ratio full / plain, {kind}: {ratio:.2f}x (goal <= 1.5x)")


if __name__ == "__main__":
    main()
