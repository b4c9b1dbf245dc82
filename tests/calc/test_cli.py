"""The CLI contract (issue 2), run as a subprocess like scripts and checks do."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "calc", *args], cwd=ROOT, capture_output=True, text=True,
        timeout=60, check=False,
    )


OPT_66B = ["--params", str(12 * 64 * 9216**2), "--layers", "64", "--hidden", "9216",
           "--heads", "72", "--kv-heads", "72"]


def test_memory_json_golden() -> None:
    # Neuron docs worked example (generative-llm-inference-with-neuron.rst): 24 NeuronCores.
    done = cli("memory", *OPT_66B, "--instance", "inf2.48xlarge", "--dtype", "bf16",
               "--batch", "16", "--seq-len", "2048", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    for field in ("weights_bytes", "kv_cache_bytes", "total_bytes", "per_core_bytes",
                  "tp_degree", "min_tp_degree", "fits"):
        assert field in result
    assert result["weights_bytes"] == 121.5 * 2**30
    assert result["kv_cache_bytes"] == 72 * 2**30
    assert result["min_tp_degree"] == 24


def test_perf_train_price_json_fields() -> None:
    perf = cli("perf", "--model", "llama-3.1-8b", "--instance", "inf2.48xlarge", "--dtype",
               "bf16", "--batch", "1", "--input-len", "128", "--output-len", "128", "--json")
    assert perf.returncode == 0, perf.stderr
    assert {"ttft_s", "tpot_s", "output_tokens_per_s", "usd_per_million_output_tokens"} <= set(
        json.loads(perf.stdout))
    train = cli("train", "--model", "llama-3.1-8b", "--instance", "trn1.32xlarge", "--count",
                "2", "--tokens", "1000000000", "--seq-len", "4096", "--mfu", "0.4", "--json")
    assert train.returncode == 0, train.stderr
    assert {"total_flops", "time_s", "tokens_per_s", "cost_usd"} <= set(json.loads(train.stdout))
    price = cli("price", "--instance", "trn1.32xlarge", "--region", "us-east-1", "--hours", "3",
                "--json")
    assert price.returncode == 0, price.stderr
    assert json.loads(price.stdout)["usd_total"] == 64.5
    memory = cli("train-memory", "--model", "llama-3.1-8b", "--instance", "trn1.32xlarge",
                 "--seq-len", "4096", "--tp", "8", "--zero", "1", "--json")
    assert memory.returncode == 0, memory.stderr
    assert "per_device_bytes" in json.loads(memory.stdout)


def test_human_summary_and_list() -> None:
    done = cli("memory", "--model", "llama-3.1-8b", "--instance", "trn1.2xlarge", "--seq-len",
               "1024")
    assert done.returncode == 0 and "fits" in done.stdout
    listing = cli("list", "instances")
    assert listing.returncode == 0
    assert any(line.startswith("inf2.48xlarge") for line in listing.stdout.splitlines())
    models = cli("list", "models", "--json")
    assert "llama-3.1-8b" in {item["id"] for item in json.loads(models.stdout)["items"]}


def test_bad_input_exits_2_with_one_stderr_line_and_no_traceback() -> None:
    cases = [
        ["memory", "--model", "llama-3.1-8b", "--instance", "inf2.48xlarge", "--seq-len", "x"],
        ["memory", "--model", "llama-3.1-8b", "--instance", "inf2.48xlarge", "--seq-len", "-5"],
        ["memory", "--model", "llama-3.1-8b", "--instance", "inf2.48xlarge", "--seq-len", "nan"],
        ["memory", "--model", "nope", "--instance", "inf2.48xlarge", "--seq-len", "5"],
        ["memory", "--model", "llama-3.1-8b", "--instance", "inf2.48xlarge", "--seq-len", "5",
         "--tp", "7"],
        ["price", "--instance", "inf2.48xlarge", "--region", "atlantis-1"],
        ["memory", "--frobnicate"],
        ["explode"],
        [],
        ["list", "gpus"],
        ["perf", "--model", "bert-base", "--instance", "inf2.xlarge", "--input-len", "5",
         "--output-len", "1e999"],
    ]
    for args in cases:
        done = cli(*args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert done.stdout == ""
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, (args, done.stderr)
        assert "Traceback" not in done.stderr
