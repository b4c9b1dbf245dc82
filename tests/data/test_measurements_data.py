"""Data tests for data/measurements.toml beyond the shared schema test in test_model_data.py:
framework ids, batching mode, serving fields, the ids other branches are still adding, and the
internal consistency of the published figures we transcribed.

Reads the TOML with tomllib directly (no calc import).
"""

from __future__ import annotations

import math
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import pytest

DATA_DIR = Path(__file__).resolve().parents[2] / "data"

FRAMEWORK_IDS = {
    "nxd-inference", "vllm-neuron", "tgi-neuron", "transformers-neuronx", "vllm-gpu",
    "tensorrt-llm", "sglang-gpu", "nxd-training", "neuronx-nemo-megatron", "pytorch-neuron",
    "nemo-gpu", "fsdp-gpu", "fastertransformer",
}
MODES = {"static", "serving"}


def framework_record(framework_id: str) -> dict[str, Any]:
    with (DATA_DIR / "frameworks.toml").open("rb") as handle:
        found = [fw for fw in tomllib.load(handle)["framework"] if fw["id"] == framework_id]
    return found[0] if found else {}

# Ids that [[pending_measurement]] records may use before data/models.toml and instances.toml
# them. PENDING_*: being added on other branches (models helper: presets; content helper: GPU
# instances); when they land, such records move to [[measurement]] with use = use_pending.
PENDING_MODEL_IDS = frozenset({
    "deepseek-v3", "qwen3-235b-a22b", "qwen3-30b-a3b", "llama-4-scout", "llama-4-maverick",
    "gemma-3-27b", "llama-3.2-1b", "llama-3.2-3b",
})
PENDING_INSTANCE_IDS = frozenset({
    "g6.xlarge", "g6e.xlarge", "g6e.12xlarge", "p5.4xlarge", "p6-b200.48xlarge",
})
# Models measured in a source but with no preset planned (described by the record's model_note).
NO_PRESET_MODEL_IDS = frozenset({"gpt3-23b", "gpt3-46b", "gpt3-175b", "mixtral-8x22b"})
MEASUREMENT_MODEL_IDS_NOT_IN_DATA = PENDING_MODEL_IDS | NO_PRESET_MODEL_IDS
# EC2 instances with the measured GPU that no branch is adding (A100 80GB; 8 × L40S).
NOT_PLANNED_INSTANCE_IDS = frozenset({"p4de.24xlarge", "g6e.48xlarge"})
MEASUREMENT_INSTANCE_IDS_NOT_IN_DATA = PENDING_INSTANCE_IDS | NOT_PLANNED_INSTANCE_IDS


@cache
def load(relative_path: str) -> dict[str, Any]:
    with (DATA_DIR / relative_path).open("rb") as handle:
        return tomllib.load(handle)


def measurements() -> list[dict[str, Any]]:
    return load("measurements.toml")["measurement"]


def pending_measurements() -> list[dict[str, Any]]:
    return load("measurements.toml").get("pending_measurement", [])


def all_records() -> list[dict[str, Any]]:
    return measurements() + pending_measurements()


def source_note(source_id: str) -> str:
    notes = {src["id"]: src.get("note", "") for src in load("sources/measurements.toml")["source"]}
    return notes.get(source_id, "")


def ids(file_name: str, table: str) -> set[str]:
    return {rec["id"] for rec in load(file_name)[table]}


def test_enough_published_records() -> None:
    assert len(measurements()) >= 200
    ids = [m["id"] for m in all_records()]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("meas", all_records(), ids=lambda m: m["id"])
def test_framework_and_mode(meas: dict[str, Any]) -> None:
    assert meas["mode"] in MODES
    assert meas["framework"].strip()
    if "framework_id" in meas:
        assert meas["framework_id"] in FRAMEWORK_IDS
    else:
        assert meas["framework_id_missing"].strip() and meas["use"] != "validation"
    if meas.get("kind") == "training":
        assert meas["framework_id"] in {"nxd-training", "neuronx-nemo-megatron", "pytorch-neuron",
                                        "nemo-gpu", "fsdp-gpu"}
    if meas["mode"] == "serving" and meas.get("kind", "inference") == "inference":
        load_fields = {"concurrency", "offered_request_throughput_per_s", "concurrency_missing"}
        stated = load_fields & meas.keys()
        assert stated, "a serving row states its load (concurrency or request rate) or why not"


@pytest.mark.parametrize("meas", all_records(), ids=lambda m: m["id"])
def test_unknown_ids_wait_in_pending_measurements(meas: dict[str, Any]) -> None:
    model_known = meas["model"] in ids("models.toml", "model")
    instance_known = meas["instance"] in ids("instances.toml", "instance")
    is_pending = meas in pending_measurements()
    # calc and the site resolve every [[measurement]]'s model and instance
    assert is_pending == (not (model_known and instance_known))
    if is_pending:
        expected = ([f"model:{meas['model']}"] if not model_known else []) + (
            [f"instance:{meas['instance']}"] if not instance_known else [])
        assert meas["pending"] == expected
        assert meas["use"] == "reference" and meas.get("use_note", "").strip()
    if not model_known:
        assert meas["model"] in MEASUREMENT_MODEL_IDS_NOT_IN_DATA, meas["model"]
        assert meas.get("model_note", "").strip()
    if not instance_known:
        assert meas["instance"] in MEASUREMENT_INSTANCE_IDS_NOT_IN_DATA, meas["instance"]
        assert meas.get("instance_note", "").strip()
    if "use_pending" in meas:
        assert meas["use_pending"] in {"validation", "calibration"} and meas["use"] == "reference"


@pytest.mark.parametrize("meas", all_records(), ids=lambda m: m["id"])
def test_value_fields(meas: dict[str, Any]) -> None:
    if "latency_stat" in meas:
        assert meas["latency_stat"] in {"mean", "p50"}
    if "mfu" in meas:
        assert 0 < meas["mfu"] < 1
    for field in ("concurrency", "compiled_batch", "seq_bucket", "cp", "ep", "virtual_pp",
                  "max_running_batch", "max_num_tokens"):
        if field in meas:
            assert isinstance(meas[field], int) and not isinstance(meas[field], bool)
            assert meas[field] > 0, field
    if "max_running_batch" in meas:
        # the limit a benchmark tool set on a saturated row (all requests queued at once): a
        # row with a batch, a stated load or an offered rate would not use it
        assert meas["mode"] == "serving" and meas.get("max_running_batch_note", "").strip()
        assert not {"batch", "concurrency", "offered_request_throughput_per_s"} & meas.keys()
    if "max_num_tokens" in meas:
        # the token budget a benchmark tool set (trtllm-bench), with the rule it followed
        assert meas["mode"] == "serving" and meas.get("max_num_tokens_note", "").strip()
        assert "max_num_tokens" in framework_record(meas["framework_id"])
    if meas.get("arrivals") == "burst":
        # a guidellm 0.1.0 throughput run: its completed requests, derived in the note
        assert isinstance(meas.get("run_requests"), int) and meas["run_requests"] > 0
        assert meas["concurrency_from"] == "littles-law"
        assert "run_requests" in meas["inferred"] and "v0.1.0" in meas["run_requests_note"]
        # the run stopped at guidellm's 120 s limit exactly when its N is the requests it
        # completed in 120 s (else at its request cap, after its last request)
        timed = meas["run_requests"] == math.floor(120 * meas["request_throughput_per_s"] + 1e-9)
        assert meas.get("run_time_limited", False) is timed, meas["id"]
        assert not timed or "120 s" in meas["run_time_limited_note"]
    if "run_time_limited" in meas:
        assert meas["arrivals"] == "burst" and meas["run_time_limited"] is True
    if "run_requests" in meas:
        assert meas.get("arrivals") in {"burst", "queued"} or "cold_replicas" in meas
    synchronous = "profile 'synchronous'" in meas.get("note", "")
    if meas.get("framework_id") == "vllm-neuron" and synchronous:
        # optimum-neuron's vLLM server never warms up: every such synchronous row says whether
        # its means include the servers' first requests (TGI's router warms its shards up)
        assert "cold_replicas" in meas
    if "cold_replicas" in meas:
        # a guidellm 0.1.0 synchronous run whose means include the first requests of servers
        # started without a warm-up: how many replicas were cold, of the run's N requests
        assert meas["concurrency"] == 1 and "arrivals" not in meas
        assert meas["cold_replicas"] in {0, meas.get("dp", 1)}   # all its replicas, or none
        # guidellm 0.1.0 runs the profile 120 s, one request after another; its requests per
        # second, N over a window between N mean latencies and 120 s, agree (to the two decimals
        # some results round it to: 0.03 for 4 requests of 28.6 s)
        requests = meas["run_requests"]
        assert requests == math.floor(120 / meas["e2e_s"])
        rate = meas["request_throughput_per_s"]
        assert requests / 120 - 0.005 <= rate <= 1 / meas["e2e_s"] + 0.005
        assert "v0.1.0" in meas["run_requests_note"]
        assert "fw-optimum-neuron-no-warmup" in meas["sources"]
        assert "fw-optimum-neuron-no-warmup" in meas["cold_replicas_note"]
        assert {"run_requests", "cold_replicas"} <= set(meas["inferred"])
    if meas.get("arrivals") == "queued":
        # trtllm-bench: the page's dataset size, every request queued at once, one length
        assert isinstance(meas.get("run_requests"), int) and meas["run_requests"] > 0
        assert "max_running_batch" in meas and "concurrency" not in meas
        assert "$num_requests" in meas.get("run_requests_note", "")
    if "output_len_sd" in meas:
        # the spread of the output lengths LLMPerf draws, cited in the note
        assert meas.get("arrivals") == "rounds" and meas["output_len_sd"] > 0
        assert "tool-llmperf" in meas.get("output_len_sd_note", "")
    if meas.get("wave_prefill") is not None:
        # the release's prefill call (TGI on transformers-neuronx), cited in the note
        assert meas["wave_prefill"] is True and meas["framework_id"] == "tgi-neuron"
        assert "fw-optimum-neuron-tgi-generator" in meas.get("wave_prefill_note", "")
    if meas.get("arrivals") == "rounds":
        # LLMPerf's rounds of the stated concurrency (all of it sent at once: no cap applies)
        assert meas["mode"] == "serving" and isinstance(meas.get("concurrency"), int)
        assert "concurrency_cap" not in meas and "run_requests" not in meas
        assert "tool-llmperf" in meas.get("arrivals_note", "")
    source_notes = " ".join(source_note(source) for source in meas.get("sources", []))
    if source_notes.startswith("LLMPerf") and meas.get("concurrency"):
        # every LLMPerf row with a stated load says how LLMPerf sent it
        assert meas.get("arrivals") == "rounds", meas["id"]
    if "concurrency_cap" in meas:
        # the load generator's cap, where the source's script states it
        assert meas.get("arrivals") == "burst" and meas.get("concurrency_cap_note", "").strip()
        assert isinstance(meas["concurrency_cap"], int) and meas["concurrency_cap"] > 1
    if "kv_read_per_query_head" in meas:
        # a release's attention kernel (TensorRT-LLM before XQA), cited in the note
        assert meas["kv_read_per_query_head"] is True
        assert meas["framework_id"] == "tensorrt-llm"
        assert "fw-trtllm-mmha-v061" in meas.get("kv_read_per_query_head_note", "")
    if "offered_request_throughput_per_s" in meas:
        rate = meas["offered_request_throughput_per_s"]
        assert isinstance(rate, int | float) and not isinstance(rate, bool) and rate > 0
    if meas.get("kind") == "training":
        assert {"tokens_per_s", "seq_len"} <= meas.keys()


# Total (input + output) and output throughput of one run must follow the request shape:
# total / output = (input_len + output_len) / output_len. Catches swapped columns in transcription.
@pytest.mark.parametrize(
    "meas",
    [m for m in all_records()
     if {"total_tokens_per_s", "output_tokens_per_s", "input_len", "output_len"} <= m.keys()],
    ids=lambda m: m["id"],
)
def test_total_and_output_throughput_agree(meas: dict[str, Any]) -> None:
    ratio = meas["total_tokens_per_s"] / meas["output_tokens_per_s"]
    expected = (meas["input_len"] + meas["output_len"]) / meas["output_len"]
    assert ratio == pytest.approx(expected, rel=0.05)


def test_sources_of_new_records_exist() -> None:
    known = {src["id"] for src in load("sources/measurements.toml")["source"]}
    for path in (DATA_DIR / "sources").glob("*.toml"):
        known |= {src["id"] for src in tomllib.loads(path.read_text(encoding="utf-8"))["source"]}
    for meas in all_records():
        assert set(meas["sources"]) <= known, meas["id"]


# guidellm 0.1 rows: the tokens each request generated and (a 'throughput' profile row) the
# requests in flight are derived from the row's own published figures, never typed: output_len =
# output tokens/s over completed requests/s (both over one window), or, for a synchronous run whose
# results round requests/s too coarsely for that, output tokens/s × mean request latency (one
# request after another: the window is the sum of the latencies); concurrency = requests/s × mean
# request latency (Little's law). The e2e check confirms the generated length independently.
GUIDELLM_ROWS = [m for m in measurements() if "output_len_requested" in m]
SYNCHRONOUS_RULE = "output_tokens_per_s × e2e_s"


def test_guidellm_rows_carry_their_generated_length() -> None:
    assert len(GUIDELLM_ROWS) >= 30
    assert all("guidellm" in m["note"] for m in GUIDELLM_ROWS)


@pytest.mark.parametrize("meas", GUIDELLM_ROWS, ids=lambda m: m["id"])
def test_generated_length_is_output_over_request_throughput(meas: dict[str, Any]) -> None:
    generated = meas["output_tokens_per_s"] / meas["request_throughput_per_s"]
    if SYNCHRONOUS_RULE in meas["output_len_note"]:
        assert "profile 'synchronous'" in meas["note"]
        generated = meas["output_tokens_per_s"] * meas["e2e_s"]
    assert meas["output_len"] == round(generated)
    assert f"{generated:.1f}" in meas["output_len_note"]
    implied_e2e = meas["ttft_s"] + (meas["output_len"] - 1) * meas["tpot_s"]
    assert meas["e2e_s"] == pytest.approx(implied_e2e, rel=0.05)


def test_a_derived_concurrency_says_so_in_a_typed_field() -> None:
    """The note explains a Little's-law concurrency; concurrency_from = "littles-law" is what the
    fit reads (calibration.Case.load_stated), so every note has the field and vice versa."""
    noted = {m["id"] for m in measurements() if "concurrency_note" in m}
    typed = {m["id"] for m in measurements() if m.get("concurrency_from") == "littles-law"}
    assert noted == typed and len(typed) >= 20


@pytest.mark.parametrize("meas", [m for m in GUIDELLM_ROWS if "concurrency_from" in m],
                         ids=lambda m: m["id"])
def test_saturated_guidellm_concurrency_is_littles_law(meas: dict[str, Any]) -> None:
    in_flight = meas["request_throughput_per_s"] * meas["e2e_s"]
    assert meas["concurrency"] == max(1, round(in_flight))
    assert f"{in_flight:.2f}" in meas["concurrency_note"]
    assert "concurrency_missing" not in meas and "offered_request_throughput_per_s" not in meas
