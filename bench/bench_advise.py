"""Benchmark the advisor (issue 11 item 4): p50/p95 of calc.api.run advise / advise_train per
representative request in this CPython process (warm data caches, as in the page's worker after
the first request, but no kept search answers: each run searches anew, as after a new workload;
calc.advise keeps perf answers between calls, which would answer a repeated request at once), and
the CLI wall time of one advise request (new interpreter, cold caches).

    python bench/bench_advise.py [--runs 40] [--cli-runs 5]

Goals: CLI < 2 s; in the browser p95 <= 150 ms, i.e. about <= 50 ms here (Pyodide runs pure
Python roughly 2-3x slower than CPython).
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

REQUESTS: list[tuple[str, str, dict[str, Any]]] = [
    ("8B chat, no targets", "advise",
     {"model": "llama-3.1-8b", "input_len": 1024, "output_len": 256}),
    ("70B, TTFT<=1 s, TPOT<=50 ms, 2 req/s", "advise",
     {"model": "llama-3.1-70b", "input_len": 1024, "output_len": 256, "ttft_max": 1.0,
      "tpot_max": 0.05, "request_rate": 2}),
    ("70B, TTFT<=0.5 s, TPOT<=50 ms, 5 req/s", "advise",
     {"model": "llama-3.1-70b", "input_len": 1024, "output_len": 256, "ttft_max": 0.5,
      "tpot_max": 0.05, "request_rate": 5}),
    ("8B, TPOT<=20 ms, 1e9 tokens/day", "advise",
     {"model": "llama-3.1-8b", "input_len": 2048, "output_len": 512, "tpot_max": 0.02,
      "tokens_per_day": 1e9}),
    ("Mixtral 8x7B fp8, Neuron only", "advise",
     {"model": "mixtral-8x7b", "input_len": 512, "output_len": 128, "family": "neuron",
      "dtype": "fp8"}),
    ("custom 1B shape, TPOT<=20 ms", "advise",
     {"layers": 24, "hidden": 2048, "heads": 16, "kv_heads": 4, "intermediate": 5632,
      "vocab": 32000, "gated": True, "input_len": 2048, "output_len": 512, "tpot_max": 0.02}),
    ("405B, impossible targets", "advise",
     {"model": "llama-3.1-405b", "input_len": 1024, "output_len": 256, "ttft_max": 0.001,
      "tpot_max": 0.001}),
    ("train 70B, 1T tokens, 30 days", "advise_train",
     {"model": "llama-3.1-70b", "tokens": 10**12, "seq_len": 4096, "deadline_h": 720}),
]
CLI = [sys.executable, "-m", "calc", "advise", "--model", "llama-3.1-70b", "--input-len", "1024",
       "--output-len", "256", "--ttft-max", "1", "--tpot-max", "0.05", "--request-rate", "2",
       "--json"]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--cli-runs", type=int, default=5)
    args = parser.parse_args()
    from calc.advise import _forget as forget_searches
    from calc.api import run

    cpu_clock = getattr(time, "thread_time", time.process_time)  # Pyodide: process_time

    print(f"{'request':<42} {'cpu p50':>8} {'cpu p95':>8} {'wall p50':>9} {'wall p95':>9} "
          f"{'perf calls':>10} {'options':>8}")
    worst_p95 = 0.0
    for name, kind, params in REQUESTS:
        request = {"schema_version": 1, "kind": kind, "params": params}
        response = run(request)  # warm-up (data caches)
        if not response["ok"]:
            raise SystemExit(f"{name}: {response['error']['message']}")
        cpu, wall = [], []
        for _ in range(args.runs):
            forget_searches()
            start_cpu, start = cpu_clock(), time.perf_counter()
            run(request)
            wall.append((time.perf_counter() - start) * 1000)
            cpu.append((cpu_clock() - start_cpu) * 1000)
        result = response["result"]
        p95 = percentile(cpu, 0.95)
        worst_p95 = max(worst_p95, p95)
        print(f"{name:<42} {statistics.median(cpu):8.1f} {p95:8.1f} "
              f"{statistics.median(wall):9.1f} {percentile(wall, 0.95):9.1f} "
              f"{result.get('perf_evaluations', '-')!s:>10} {len(result['options']):>8}")
    where = "Pyodide" if sys.platform == "emscripten" else "CPython"
    print(f"worst CPU p95 ({where}): {worst_p95:.1f} ms  (CPU time of this thread where the "
          "interpreter has one; wall time on a shared machine adds other processes' slices)")
    if args.cli_runs <= 0:
        return
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    walls = []
    for _ in range(args.cli_runs):
        start = time.perf_counter()
        subprocess.run(CLI, cwd=ROOT, env=env, check=True, capture_output=True)
        walls.append(time.perf_counter() - start)
    print(f"CLI advise (cold interpreter) wall: median {statistics.median(walls) * 1000:.0f} ms, "
          f"max {max(walls) * 1000:.0f} ms over {args.cli_runs} runs")


if __name__ == "__main__":
    main()
