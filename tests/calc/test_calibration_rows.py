"""How calc.calibration reads published serving rows, with hand-computed expectations: a
saturated row's running batch holds only the requests whose KV fits beside the weights, and an
open-loop row's throughput is the offered load (not scored)."""

import math
from dataclasses import replace

import pytest

from calc import calibration, data, frameworks, memory, serving

# Llama 3.1 70B: 80 layers, 8 KV heads of 128; one request of 128 + 2048 tokens at FP8 KV
# (1 byte): 80 · 8 · 128 · 2 (K and V) · 1 · 2176 = 356,515,840 bytes on one GPU (TP 1)
KV_BYTES_70B_2176_FP8 = 80 * 8 * 128 * 2 * 1 * 2176


def _case(case_id: str) -> calibration.Case:
    return next(c for c in calibration.cases() if c.id == case_id)


def test_requests_in_kv_memory_by_hand() -> None:
    model, instance = data.model("llama-3.1-70b"), data.instance("p5.48xlarge")
    assert (model.layers, model.kv_heads, model.head_dim) == (80, 8, 128)
    weights = memory.footprint(model, instance.chip, dtype="fp8", kv_dtype="fp8", batch=1,
                               seq_len=2176, tp=1)
    assert weights.kv_cache_per_core_bytes == KV_BYTES_70B_2176_FP8
    free = (instance.chip.usable_memory_per_core_bytes - weights.weights_per_core_bytes
            - instance.chip.runtime_overhead_per_core_bytes)
    expected = free // KV_BYTES_70B_2176_FP8
    assert 0 < expected < 256          # the limit that binds here is memory, not the scheduler
    assert memory.sequences_in_kv_memory(model, instance, dtype="fp8", kv_dtype="fp8",
                                         seq_len=2176, tp=1) == expected
    # twice the KV per request (BF16): half the requests, rounded down
    assert memory.sequences_in_kv_memory(model, instance, dtype="fp8", kv_dtype="bf16",
                                         seq_len=2176, tp=1) == free // (2 * KV_BYTES_70B_2176_FP8)
    # weights alone larger than the memory: no request fits
    assert memory.sequences_in_kv_memory(model, instance, dtype="bf16", kv_dtype="bf16",
                                         seq_len=2176, tp=1) == 0


def test_a_saturated_row_runs_only_the_requests_whose_kv_fits() -> None:
    # trtllm-bench max throughput, all requests queued at once: trtllm-bench sets the engine's
    # max batch from the requests whose KV fits (at most 4096, the row's max_running_batch), so
    # the running batch is what memory holds, not the framework default of 256 the calculators
    # assume for a server without a stated limit
    assert frameworks.get("tensorrt-llm").default_max_batch == 256
    case = _case("gpu-trtllm017-llama-3.1-70b-h100-tp1-fp8-maxload-128-2048")
    assert case.kv_dtype == "fp8" and case.framework.default_max_batch == 4096
    assert case.batch == memory.sequences_in_kv_memory(
        case.model, case.instance, dtype="fp8", kv_dtype="fp8", seq_len=128 + 2048, tp=1)
    assert case.batch < 256
    # a small model on the same GPU: memory holds more than 256 requests, and all of them run.
    # Llama 3.1 8B: 32 layers, 8 KV heads of 128; 128 + 2048 tokens at FP8 KV (1 byte)
    small = _case("gpu-trtllm017-llama-3.1-8b-h100-tp1-fp8-maxload-128-2048")
    assert (small.model.layers, small.model.kv_heads, small.model.head_dim) == (32, 8, 128)
    weights = memory.footprint(small.model, small.instance.chip, dtype="fp8", kv_dtype="fp8",
                               batch=1, seq_len=2176, tp=1)
    free = (small.instance.chip.usable_memory_per_core_bytes - weights.weights_per_core_bytes
            - small.instance.chip.runtime_overhead_per_core_bytes)
    held = free // (32 * 8 * 128 * 2 * 1 * 2176)
    assert 256 < held < 4096 and small.batch == held
    raw = next(r for r in data.records("measurements") if r["id"] == small.id)
    assert raw["max_running_batch"] == 4096 and "tuning.py" in raw["max_running_batch_note"]
    # trtllm-bench's token budget: min(B · (1 + in / out), 32,768) >= the B / out prompts that
    # wait at each step, so only its cap can bind; the row carries the cap, the framework 8,192
    assert raw["max_num_tokens"] == 32768 and "finetune_setting" in raw["max_num_tokens_note"]
    assert small.framework.max_num_tokens == 32768
    assert frameworks.get("tensorrt-llm").max_num_tokens == 8192


def test_a_saturated_row_without_a_stated_limit_keeps_the_framework_default() -> None:
    # TensorRT-LLM 0.14 online serving at an infinite rate (the Triton backend; the page gives
    # no max batch): the running batch is the framework default 256, which memory can hold
    case = _case("gpu-trtllm014-llama-3.1-8b-h100-tp1-qpsinf-467-256")
    assert case.framework.default_max_batch == 256 and case.batch == 256
    assert case.framework.max_num_tokens == 8192   # the engine build default (not stated)
    assert memory.sequences_in_kv_memory(case.model, case.instance, dtype=case.dtype,
                                         kv_dtype=case.kv_dtype, seq_len=467 + 256,
                                         tp=1) > 256


def test_an_open_loop_rows_throughput_is_the_offered_load_and_is_not_scored() -> None:
    # 2 requests/s of 467 + 16 tokens on one H100: the GPU is idle most of the time, so it
    # delivers 2 · 16 = 32 output tokens/s (the source measured 32), not a closed loop's rate
    case = _case("gpu-trtllm014-llama-3.1-8b-h100-tp1-qps2-467-16")
    assert case.request_rate_per_s == 2 and case.output_len == 16
    assert case.output_tokens_per_s == 32
    constants = calibration.stored_constants()
    assert calibration.estimate(case, constants)["output_tokens_per_s"] == pytest.approx(32.0)
    assert case.measured("output_tokens_per_s") is None     # fixed by the rate, not the model
    assert case.measured("tpot_s") == case.tpot_s            # latencies are still scored
    # an offered load beyond what the GPU can serve: the throughput with the running batch full
    flooded = replace(case, request_rate_per_s=1e6)
    full = calibration.estimate(replace(case, request_rate_per_s=None, batch=256), constants)
    assert calibration.estimate(flooded, constants)["output_tokens_per_s"] == pytest.approx(
        full["output_tokens_per_s"])
    assert full["output_tokens_per_s"] < 1e6 * 16


def test_tensorrt_llm_0_6_rows_read_the_kv_cache_per_query_head() -> None:
    # TensorRT-LLM 0.5 and 0.6.1 had no XQA kernel: every row of those releases says so, and
    # its case runs the framework that way; later releases' rows do not
    old = [r for r in data.records("measurements")
           if r.get("sdk") in ("TensorRT-LLM 0.5", "TensorRT-LLM 0.6.1")]
    assert len(old) == 29
    assert all(r.get("kv_read_per_query_head") is True
               and "fw-trtllm-mmha-v061" in r["kv_read_per_query_head_note"] for r in old)
    case = _case("gpu-trtllmv061-llama-2-70b-h100-tp4-b480-fp8-128-2048")
    assert case.framework.kv_read_per_query_head is True
    newer = _case("gpu-trtllm017-llama-3.1-8b-h100-tp1-fp8-maxload-128-2048")
    assert newer.framework.kv_read_per_query_head is False


def test_guidellm_throughput_rows_are_read_as_a_burst_run() -> None:
    # guidellm 0.1.0 caps its sweep's throughput profile at 5 x the synchronous profile's
    # completed requests, and both run 120 s: Trn2 Llama 3.1 8B completed floor(120 x 0.18400)
    # = 22 synchronous requests -> at most 110; 120 x 2.4603 = 295 in the time: N = 110
    raw = next(r for r in data.records("measurements")
               if r["id"] == "trn2-vllm-neuron-llama-3.1-8b-tp4-cb32-max-1500-250")
    sync = next(r for r in data.records("measurements")
                if r["id"] == "trn2-vllm-neuron-llama-3.1-8b-tp4-cb32-sync-1500-250")
    assert math.floor(120 * sync["request_throughput_per_s"]) == 22
    assert raw["arrivals"] == "burst" and raw["run_requests"] == 110
    assert "run_requests" in raw["inferred"]
    case = _case(raw["id"])
    assert case.batch == 29 and case.burst_run_requests == 110
    assert case.work.burst_run_requests == 110
    # over replicas: a run of 90 behind 4 replicas is 22.5 requests each
    dp4 = _case("trn1-vllm-neuron-llama-3.1-8b-tp8-dp4-cb32-max-1500-250-2025-09-22-07-53")
    assert dp4.burst_run_requests == pytest.approx(90 / 4)
    # a run bounded by its 120 s rather than the cap: Trn2 Llama 4 Maverick, 0.3964 requests/s
    maverick = next(r for r in data.records("measurements")
                    if r["id"] == "trn2-vllm-neuron-llama-4-maverick-tp64-cb8-max-1500-250")
    assert maverick["run_requests"] == math.floor(120 * maverick["request_throughput_per_s"])
    assert maverick["run_time_limited"] is True
    assert _case(maverick["id"]).work.burst_run_timed and not case.work.burst_run_timed
    # ... also with a cap above it: Inf2 Qwen3-30B-A3B batch 4 behind 2 replicas sent 15 at once
    # (cap 16) and completed 8 in the 120 s, so its run did not end with its last request (calc
    # reads the burst as min(cap - 1, N) = 8, 4 per replica)
    timed = _case("inf2-vllm-neuron-qwen3-30b-a3b-tp8-dp2-cb4-max-1500-250-2026-03-18")
    assert timed.burst_run_timed and timed.burst_arrivals == timed.burst_run_requests == 4


def test_a_stated_concurrency_cap_sends_the_whole_run_at_once() -> None:
    # Inf2 TGI Llama 3.3 70B: the script's GUIDELLM__MAX_CONCURRENCY = 128 > its 45 requests,
    # so all 45 go out at once though Little's law gives 27 in flight on average
    raw = next(r for r in data.records("measurements")
               if r["id"] == "inf2-tgi-neuron-llama-3.3-70b-tp24-cb8-max-1500-250")
    assert raw["concurrency_cap"] == 128 and raw["run_requests"] == 45
    case = _case(raw["id"])
    assert case.batch == 27 and case.burst_arrivals == 45 and case.work.burst_arrivals == 45
    # no cap stated: the burst is the row's concurrency
    assert _case("trn2-vllm-neuron-llama-3.1-8b-tp4-cb32-max-1500-250").burst_arrivals is None


def test_trtllm_bench_rows_are_read_as_queued_runs() -> None:
    # the perf-overview pages' dataset table: 3,000 requests at 128/2048 and 2048/128, 1,500 at
    # 2048/2048 and 5000/500, all queued at once
    expected = {(128, 2048): 3000, (2048, 128): 3000, (2048, 2048): 1500, (5000, 500): 1500}
    rows = [r for r in data.records("measurements") if r.get("arrivals") == "queued"]
    assert len(rows) == 145
    for raw in rows:
        assert raw["run_requests"] == expected[(raw["input_len"], raw["output_len"])]
    case = _case("gpu-trtllm10-llama-3.1-8b-h100-tp1-fp8-maxload-2048-2048")
    assert case.queued_requests == 1500 and case.work.queued_requests == 1500
    assert case.burst_run_requests is None


def test_llmperf_rounds_on_one_server_are_read_as_bursts() -> None:
    # optimum-neuron's 2024 TGI benchmarks ran LLMPerf, which sent its requests in rounds of the
    # concurrency: on one server (Trn1, no dp) each round is a burst of C, N = C
    one = _case("trn1-tgi-llama-3-70b-tp32-cb8-c8-1500-245-2024-09-10")
    assert one.burst_run_requests == 8 and one.work.burst_run_requests == 8
    assert one.framework.wave_prefill
    # LLMPerf drew each request's output length from N(245, 20): the round waits for its longest
    assert one.output_len_sd == 20 and one.work.output_len_sd == 20
    assert all(r.get("output_len_sd") == 20 for r in data.records("measurements")
               if r.get("arrivals") == "rounds")
    # behind a balancer (Inf2, dp 3) the rows keep the closed loop
    spread = _case("inf2-tgi-llama-3-8b-tp8-dp3-cb32-c8-1500-245-2024-07-22")
    raw = next(r for r in data.records("measurements") if r["id"] == spread.id)
    assert raw["arrivals"] == "rounds" and raw["dp"] == 3
    assert spread.burst_run_requests is None


def test_cold_synchronous_runs_count_each_replicas_first_request() -> None:
    # Trn1 Llama 3.1 8B behind 4 replicas: the first run after the servers started completed
    # floor(120 s x 0.15xx requests/s) = 18 requests, 4 of them a replica's first; the next two
    # runs hit warm servers (cold_replicas = 0)
    first = _case("trn1-vllm-neuron-llama-3.1-8b-tp8-dp4-cb32-sync-1500-250-2025-09-22-07-53")
    later = _case("trn1-vllm-neuron-llama-3.1-8b-tp8-dp4-cb32-sync-1500-250-2025-09-22-08-51")
    assert first.cold_share == pytest.approx(4 / 18) and later.cold_share == 0.0
    # Inf2 behind 3 replicas: 17 requests, 3 cold; one server (Trn2 8B): 22 requests, 1 cold
    assert _case("inf2-vllm-neuron-llama-3.1-8b-tp8-dp3-cb32-sync-1500-250").cold_share \
        == pytest.approx(3 / 17)
    assert _case("trn2-vllm-neuron-llama-3.1-8b-tp4-cb32-sync-1500-250").cold_share \
        == pytest.approx(1 / 22)
    # rows of other tools and loaded rows carry none
    assert _case("trn1-vllm-neuron-llama-3.1-8b-tp8-dp4-cb32-max-1500-250-2025-09-22-07-53") \
        .cold_share == 0.0


def test_a_cold_share_adds_its_part_of_the_first_requests_warm_up() -> None:
    # with t_first = 1.8 s, 4/18 of the mean's requests cold: TTFT + 0.4 s, and the run's
    # throughput falls by e2e / (e2e + 0.4 s) (the requests took that much longer on average)
    stored = calibration.stored_constants()
    case = _case("trn1-vllm-neuron-llama-3.1-8b-tp8-dp4-cb32-sync-1500-250-2025-09-22-07-53")
    key = ("vllm-neuron", case.group)
    with_warm_up = replace(stored.efficiency(case.group, "vllm-neuron"), first_request_extra_s=1.8)
    constants = replace(stored, framework_groups={**stored.framework_groups, key: with_warm_up})
    warm = calibration.estimate(replace(case, cold_share=0.0), constants)
    cold = calibration.estimate(case, constants)
    assert cold["ttft_s"] == pytest.approx(warm["ttft_s"] + 0.4)
    assert cold["tpot_s"] == warm["tpot_s"]
    e2e = calibration._serve(case, constants).e2e_s
    assert cold["output_tokens_per_s"] == pytest.approx(
        warm["output_tokens_per_s"] * e2e / (e2e + 0.4))


IDEAL = serving.Efficiency(decode_memory=1.0, prefill_compute=1.0, collective_hop_latency_s=0.0)


def _ideal_constants() -> calibration.Constants:
    """Every group at peak bandwidth and peak FLOP/s, with no latency and no step cost: what the
    engine's own physics allows a run at most."""
    return calibration.Constants(groups={group: IDEAL for group in
                                         calibration.stored_constants().groups},
                                 steps={}, training={}, fitted_on={})


def test_no_published_row_beats_the_ideal_roofline() -> None:
    # a row read with the wrong setup (here: a KV cache twice too large, so half the requests
    # at once) can ask for more than the hardware gives; every scored row, read as the engine
    # reads it, must need at least its ideal time: throughput <= ideal, TPOT and TTFT >= ideal
    ideal = _ideal_constants()
    beaten = []
    for case in calibration.cases():
        estimated = calibration.estimate(case, ideal)
        throughput = case.measured("output_tokens_per_s")
        if throughput and throughput > estimated["output_tokens_per_s"]:
            beaten.append((case.id, "output_tokens_per_s"))
        for field in ("tpot_s", "ttft_s"):
            measured = case.measured(field)
            if measured and measured < estimated[field]:
                beaten.append((case.id, field))
    assert beaten == []


def test_trtllm_bench_sets_an_fp8_kv_cache_for_fp8_checkpoints() -> None:
    # NVIDIA's guide: an FP8 checkpoint whose kv_cache_quant_algo is null runs an FP8 KV cache
    # under trtllm-bench (source fw-trtllm-bench-kv-mapping); read as BF16, the 8B H100 row at
    # 2048/2048 would need more than the ideal roofline allows
    row = "gpu-trtllm10-llama-3.1-8b-h100-tp1-fp8-maxload-2048-2048"
    case = _case(row)
    assert case.kv_dtype == "fp8"
    in_memory = {kv: memory.sequences_in_kv_memory(case.model, case.instance, dtype="fp8",
                                                   kv_dtype=kv, seq_len=4096, tp=1)
                 for kv in ("fp8", "bf16")}
    assert case.batch == in_memory["fp8"]
    # twice the bytes per request: half as many at once (the free memory over 2 · KV, rounded
    # down, so the FP8 count halved or one less)
    assert in_memory["bf16"] in (in_memory["fp8"] // 2, in_memory["fp8"] // 2 - 1)
    as_bf16 = replace(case, kv_dtype="bf16", batch=in_memory["bf16"])
    ideal = _ideal_constants()
    assert case.measured("output_tokens_per_s") > \
        calibration.estimate(as_bf16, ideal)["output_tokens_per_s"]
    assert case.measured("output_tokens_per_s") < \
        calibration.estimate(case, ideal)["output_tokens_per_s"]
    assert all(r.get("kv_dtype") == "fp8" for r in data.records("measurements")
               if "trtllm-perf-overview-v1.0" in r["sources"] and r.get("dtype") == "fp8")


def test_a_chunked_prefill_row_counts_one_fixed_latency_per_call() -> None:
    # optimum-neuron's vLLM server of March 2026 prefilled a 1,500-token prompt in two 1,024-token
    # calls (source fw-optimum-neuron-chunked-prefill): the row's TTFT holds two calls, each
    # paying t_fixed, where a whole-prompt server's holds one
    case = _case("inf2-vllm-neuron-llama-3.1-8b-tp8-cb32-sync-1500-250-2026-03-17")
    assert case.prefill_chunk_tokens == 1024 and case.work.prefill_chunk_tokens == 1024
    efficiency = calibration.stored_constants().efficiency(case.group, case.framework.id)
    parts = calibration._served_parts(case, efficiency, {})
    passes = calibration.ttft_passes(parts)
    assert [(weight, roof.passes, roof.tokens) for weight, roof in passes] == [(1.0, 2, 1024)]
    whole = calibration._served_parts(replace(case, prefill_chunk_tokens=None), efficiency, {})
    assert [roof.passes for _, roof in calibration.ttft_passes(whole)] == [1]
