"""Benchmark the calc engine: CLI cold start and warm calc.api.run latency.

    python bench/bench_calc.py [--runs 15] [--calls 2000]

Cold start: wall time of `python -m calc memory ...` as a subprocess (new interpreter; calc's
bytecode cached as in an installed package, even where PYTHONDONTWRITEBYTECODE is set), median of
--runs runs, twice: with the checked data tree kept on disk (calc.data_cache, primed by one run in
a temporary cache directory: every later CLI call) and without it (NFG_CACHE_DIR empty: the first
call after a data or code change parses and checks every TOML file). Warm: median and p95 of
--calls calc.api.run memory requests in this process after one warm-up call. Goals (issue 2): cold
<= 150 ms, warm median <= 1 ms.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

COMMAND = [
    sys.executable, "-m", "calc", "memory", "--model", "llama-3.1-8b", "--instance",
    "inf2.48xlarge", "--dtype", "bf16", "--batch", "4", "--seq-len", "4096", "--json",
]
REQUEST = {
    "schema_version": 1,
    "kind": "memory",
    "params": {"model": "llama-3.1-8b", "instance": "inf2.48xlarge", "dtype": "bf16",
               "batch": 4, "seq_len": 4096},
}


def _child_env(cache_dir: str) -> dict[str, str]:
    """The CLI child's environment: NFG_CACHE_DIR=cache_dir ("": no cache), the default data
    tree, and calc's bytecode cached as when a user runs it."""
    env = {**os.environ, "NFG_CACHE_DIR": cache_dir}
    env.pop("NFG_DATA_DIR", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def cold_start_s(runs: int, cache_dir: str) -> tuple[list[float], list[float]]:
    """(wall seconds, CPU seconds user+sys of the child) per run, with NFG_CACHE_DIR=cache_dir
    ("" : no cache)."""
    env = _child_env(cache_dir)
    # prime the bytecode and the data cache
    subprocess.run(COMMAND, cwd=ROOT, check=True, capture_output=True, env=env)
    wall, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(COMMAND, cwd=ROOT, check=True, capture_output=True, env=env)
        wall.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall, cpu


def import_split_s(runs: int, cache_dir: str) -> tuple[float, float, float]:
    """Median (calc modules' import self time, other imports' self time, the rest of the wall
    time) in seconds, from -X importtime runs with the kept tree."""
    env = _child_env(cache_dir)
    command = [COMMAND[0], "-X", "importtime", *COMMAND[1:]]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True, env=env)
    own, other, rest = [], [], []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, check=True, capture_output=True, env=env,
                              text=True)
        wall = time.perf_counter() - start
        calc_us = stdlib_us = 0
        for line in done.stderr.splitlines():   # "import time: self | cumulative | name"
            parts = line.removeprefix("import time:").split("|")
            if len(parts) != 3 or not parts[0].strip().isdigit():
                continue
            name = parts[2].strip()
            if name == "calc" or name.startswith("calc."):
                calc_us += int(parts[0])
            else:
                stdlib_us += int(parts[0])
        own.append(calc_us / 1e6)
        other.append(stdlib_us / 1e6)
        rest.append(wall - (calc_us + stdlib_us) / 1e6)
    return statistics.median(own), statistics.median(other), statistics.median(rest)


def warm_call_s(calls: int) -> list[float]:
    from calc import api

    api.run(REQUEST)
    times = []
    for index in range(calls):
        request = {**REQUEST, "params": {**REQUEST["params"], "batch": 1 + index % 64}}
        start = time.perf_counter()
        response = api.run(request)
        times.append(time.perf_counter() - start)
        assert response["ok"], response
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description="calc cold start and warm call latency")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="nfg-bench-cache-") as cache_dir:
        cold, cold_cpu = cold_start_s(args.runs, cache_dir)
        own_s, other_s, rest_s = import_split_s(args.runs, cache_dir)
    checked, checked_cpu = cold_start_s(args.runs, "")
    warm = warm_call_s(args.calls)
    warm_sorted = sorted(warm)
    print(f"load average (1 min) at start: {load:.2f} on {os.cpu_count()} CPUs")
    for label, wall, cpu in (("checked tree kept on disk", cold, cold_cpu),
                             ("no cache: every TOML parsed and checked", checked, checked_cpu)):
        print(f"cold start `python -m calc memory`, {label} ({args.runs} runs): "
              f"median {statistics.median(wall) * 1e3:.1f} ms, min {min(wall) * 1e3:.1f} ms, "
              f"max {max(wall) * 1e3:.1f} ms wall (goal <= 150 ms); "
              f"CPU user+sys median {statistics.median(cpu) * 1e3:.1f} ms")
    print(f"where a cold call goes (-X importtime runs, slower than plain ones; {args.runs} runs, "
          f"each part's median, so the parts need not add up to the figure above): calc modules' "
          f"imports {own_s * 1e3:.1f} ms, other imports (standard library, site) "
          f"{other_s * 1e3:.1f} ms, the rest (interpreter start, argv, kept tree, answer) "
          f"{rest_s * 1e3:.1f} ms")
    print(f"warm calc.api.run memory ({args.calls} calls): "
          f"median {statistics.median(warm) * 1e3:.3f} ms, "
          f"p95 {warm_sorted[int(0.95 * len(warm_sorted))] * 1e3:.3f} ms (goal median <= 1 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
