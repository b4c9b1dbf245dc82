"""Speed model: roofline terms, bounds, TP collectives, MoE, dtypes and $/1M tokens."""

import pytest
from calc_helpers import (
    error,
    multiplied_params,
    prefill_projection_flops,
    run,
    streamed_params,
)

from calc import data, dtypes, frameworks, kv, serving
from calc.perf import Efficiency, allreduce_steps, decode_roofline


def test_allreduce_latency_steps_are_log_depth() -> None:
    assert allreduce_steps(1) == 0
    assert allreduce_steps(2) == 2
    assert allreduce_steps(24) == 10
    assert allreduce_steps(32) == 10
    assert allreduce_steps(64) == 12


def test_decode_is_bandwidth_bound_at_batch_1_and_reports_fields() -> None:
    result = run("perf", model="llama-3.1-8b", instance="inf2.48xlarge", dtype="bf16",
                 batch=1, input_len=128, output_len=128, tp=8)
    assert result["decode_bound"] == "bandwidth"
    assert result["tp_degree"] == 8
    assert result["replicas"] == 3
    assert result["output_tokens_per_s"] == pytest.approx(
        3 * result["output_tokens_per_s_per_replica"]
    )
    assert result["ttft_s"] > 0 and result["tpot_s"] > 0


def test_usd_per_million_tokens_follows_price_and_throughput() -> None:
    result = run("perf", model="llama-3.1-8b", instance="inf2.48xlarge", input_len=128,
                 output_len=128, tp=8)
    usd_per_hour = data.price("inf2.48xlarge", "us-east-1", "on-demand")
    assert usd_per_hour is not None and usd_per_hour.usd_per_hour is not None
    expected = usd_per_hour.usd_per_hour / (3600 * result["output_tokens_per_s"]) * 1e6
    assert result["usd_per_million_output_tokens"] == pytest.approx(expected)


def test_missing_price_gives_null_and_reason() -> None:
    result = run("perf", model="llama-3.1-8b", instance="trn2.48xlarge", input_len=128,
                 output_len=128)
    assert result["usd_per_million_output_tokens"] is None
    assert result["price_missing_reason"] == "not_published"


def test_moe_decode_streams_the_active_weights_and_looks_up_the_embedding() -> None:
    model = data.model("mixtral-8x7b")
    instance = data.instance("trn1.32xlarge")
    roofline = decode_roofline(model, instance, tp=8, dtype="bf16", kv_dtype="bf16", batch=1,
                               context=1)
    weights_per_core = dtypes.bytes_for(streamed_params(model, 1), "bf16") / 8
    bandwidth = instance.memory_bandwidth_per_core_bytes_per_s
    assert bandwidth is not None
    assert roofline.memory_s == pytest.approx(weights_per_core / bandwidth, rel=0.01)
    assert model.active_params < model.params


def test_int8_is_weight_only_and_fp8_uses_fp8_peak() -> None:
    int8 = run("perf", model="llama-3.1-8b", instance="trn2.48xlarge", dtype="int8",
               input_len=128, output_len=16, tp=4)
    assert int8["compute_dtype"] == "bf16" and int8["kv_dtype"] == "bf16"
    fp8 = run("perf", model="llama-3.1-8b", instance="trn2.48xlarge", dtype="fp8",
              input_len=128, output_len=16, tp=4)
    assert fp8["compute_dtype"] == "fp8"
    a100 = error("perf", model="llama-3.1-8b", instance="p4d.24xlarge", dtype="fp8",
                 input_len=128, output_len=16, tp=1)
    assert a100["key"] == "dtype_not_supported"  # no fp8 on A100 (issue 9: refused)
    kv = run("perf", model="llama-3.1-8b", instance="trn2.48xlarge", dtype="int8",
             kv_dtype="fp8", input_len=128, output_len=16, tp=4)
    assert kv["kv_dtype"] == "fp8"


def test_encoder_has_no_decode() -> None:
    assert error("perf", model="bert-base", instance="inf2.xlarge", input_len=128,
                 output_len=1)["key"] == "not_a_decoder"


def test_efficiency_constants_come_from_data() -> None:
    efficiency = Efficiency.from_data()
    assert 0 < efficiency.decode_memory <= 1
    assert 0 < efficiency.prefill_compute <= 1
    assert efficiency.collective_hop_latency_s >= 0


def test_decode_step_adds_the_attention_kernels_to_the_projections() -> None:
    """Llama 3.1 8B on one H200 at batch 256, 2048 tokens of context: the projections stream
    16 GB of weights (3.3 ms at 4.8 TB/s) while their FLOPs take 4.2 ms at the BF16 peak; attention
    reads 256 × 2048 × 32 layers × 2 × 8 × 128 × 2 B = 68.7 GB of KV (14.3 ms). The kernels run one
    after the other: step = max(weights, projections) + max(KV, attention FLOPs), by hand."""
    model = data.model("llama-3.1-8b")
    instance = data.instance("p5e.48xlarge")
    batch, context = 256, 2048
    roof = decode_roofline(model, instance, tp=1, dtype="bf16", kv_dtype="bf16", batch=batch,
                           context=context)
    bandwidth = instance.memory_bandwidth_per_core_bytes_per_s
    assert bandwidth is not None
    kv_bytes = batch * context * model.layers * 2 * model.kv_heads * model.head_dim * 2
    assert roof.kv_memory_s == pytest.approx(kv_bytes / bandwidth)
    weights_bytes = dtypes.bytes_for(streamed_params(model, batch), "bf16")
    assert roof.weights_memory_s == pytest.approx(weights_bytes / bandwidth, rel=0.01)
    peak = 989e12  # H100/H200 dense BF16 per GPU
    attention_flops = 4 * model.layers * context * model.heads * model.head_dim * batch
    assert roof.attention_compute_s == pytest.approx(attention_flops / peak, rel=0.01)
    projections = roof.projection_compute_s
    assert projections == pytest.approx(2 * multiplied_params(model) * batch / peak, rel=0.05)
    ideal = Efficiency(1.0, 1.0, 0.0)
    by_hand = (max(roof.weights_memory_s, projections)
               + max(roof.kv_memory_s, roof.attention_compute_s))
    assert roof.time_s(ideal) == pytest.approx(by_hand)
    # here the projections are FLOP-bound and attention is KV-bound: their sum, which one
    # roofline over the totals (max of 17.7 ms memory, 4.4 ms compute) would not show
    assert projections > roof.weights_memory_s and roof.kv_memory_s > roof.attention_compute_s
    assert roof.time_s(ideal) == pytest.approx(projections + roof.kv_memory_s)
    assert roof.time_s(ideal) > max(roof.memory_s, roof.compute_s)


def test_at_batch_1_the_step_equals_one_roofline_over_the_totals() -> None:
    model = data.model("llama-3.1-8b")
    instance = data.instance("p5e.48xlarge")
    roof = decode_roofline(model, instance, tp=1, dtype="bf16", kv_dtype="bf16", batch=1,
                           context=512)
    ideal = Efficiency(1.0, 1.0, 0.0)
    assert roof.time_s(ideal) == pytest.approx(roof.memory_s, rel=1e-9)


@pytest.mark.parametrize("params", [
    dict(model="llama-3.1-8b", instance="p5e.48xlarge", tp=1, batch=256, input_len=512,
         output_len=512, framework="tensorrt-llm"),
    dict(model="llama-3.1-70b", instance="p5.48xlarge", tp=4, batch=64, input_len=2048,
         output_len=512, framework="vllm-gpu"),
    dict(model="llama-3.1-8b", instance="trn1.32xlarge", tp=8, batch=4, input_len=1024,
         output_len=256),
    dict(model="mixtral-8x7b", instance="trn1.32xlarge", tp=32, batch=4, input_len=1024,
         output_len=256),
    dict(model="mixtral-8x7b", instance="p5.48xlarge", tp=4, batch=32, input_len=1024,
         output_len=256, framework="tensorrt-llm"),
])
def test_the_shown_steps_add_up_to_the_decode_step(params: dict[str, object]) -> None:
    """The derivation's decode terms recompute the decode step with its own formula, at TP 1 and
    above (the decode's own collectives) and with routed experts."""
    steps = {s["key"]: s["value"] for s in run("perf", **params)["derivation"]}
    by_hand = (max(steps["decode_memory_s"], steps["decode_compute_s"])
               + max(steps["decode_kv_s"], steps["decode_attention_s"])
               + steps["decode_collective_s"] + steps["step_fixed_s"]
               + steps.get("decode_expert_s", 0.0))
    assert steps["decode_step_s"] == pytest.approx(by_hand, rel=1e-9)


def test_the_bound_names_the_terms_that_win_in_each_kernel() -> None:
    """8B on one H200 at batch 256: the projections are FLOP-bound and attention KV-bound; the
    FLOP-bound time is the larger, so the decode is compute-bound although the bytes (weights + KV)
    take longer than all the FLOPs together."""
    result = run("perf", model="llama-3.1-8b", instance="p5e.48xlarge", tp=1, batch=256,
                 input_len=512, output_len=512, framework="tensorrt-llm")
    steps = {s["key"]: s["value"] for s in result["derivation"]}
    assert steps["decode_compute_s"] > steps["decode_memory_s"]
    assert steps["decode_kv_s"] > steps["decode_attention_s"]
    assert steps["decode_compute_s"] > steps["decode_kv_s"]
    assert steps["decode_memory_s"] + steps["decode_kv_s"] > (
        steps["decode_compute_s"] + steps["decode_attention_s"])
    assert result["decode_bound"] == "compute"


def test_flash_attention_frameworks_count_the_unmasked_half_of_a_prompt() -> None:
    """An 8,192-token prompt of Llama 3.1 8B (32 layers, 32 × 128 attention width): TensorRT-LLM's
    and vLLM's FlashAttention kernels skip the masked blocks, 4 · 32 · (8192 · 8193 / 2) · 4096
    FLOPs; NxD Inference's compiled graph runs the full square, 4 · 32 · 8192² · 4096. Gemma 3's
    sliding-window layers (1,024 tokens) attend to w(w + 1)/2 + (p − w) · w pairs."""
    model = data.model("llama-3.1-8b")
    gpu = data.instance("p5e.48xlarge")
    prompt = 8192
    half = serving.prefill_roofline(model, gpu, tp=1, dtype="bf16", batch=1, input_len=prompt,
                                    causal_skip=True)
    full = serving.prefill_roofline(model, gpu, tp=1, dtype="bf16", batch=1, input_len=prompt)
    peak = 989e12
    assert half.attention_compute_s * peak == pytest.approx(
        4 * 32 * (prompt * (prompt + 1) // 2) * 4096, rel=1e-9)
    assert full.attention_compute_s * peak == pytest.approx(4 * 32 * prompt**2 * 4096, rel=1e-9)
    assert half.projection_compute_s == pytest.approx(full.projection_compute_s, rel=1e-12)
    assert frameworks.get("tensorrt-llm").causal_skip and frameworks.get("vllm-gpu").causal_skip
    assert not frameworks.get("nxd-inference").causal_skip
    steps = {s["key"]: s["formula"] for s in run(
        "perf", model="llama-3.1-8b", instance="p5e.48xlarge", tp=1, batch=1, input_len=prompt,
        output_len=16, framework="tensorrt-llm")["derivation"]}
    assert "unmasked half" in steps["prefill_attention_s"]
    gemma = data.model("gemma-3-27b")
    local = next(g for g in kv.layer_groups(gemma) if g.window is not None)
    glob = next(g for g in kv.layer_groups(gemma) if g.window is None)
    w = local.window
    assert w is not None and w < prompt
    assert serving.causal_attention_pairs(gemma, prompt) == (
        glob.layers * prompt * (prompt + 1) // 2 + local.layers * (w * (w + 1) // 2
                                                                   + (prompt - w) * w))


@pytest.mark.parametrize("model_id", ["llama-3.1-8b", "gemma-3-27b", "llama-4-scout",
                                      "deepseek-v3"])
def test_causal_pairs_equal_a_token_by_token_count(model_id: str) -> None:
    """Every token attends to itself and the ones before it: all of them in a full-attention
    layer, the last w in a sliding-window layer, those of its own chunk in a chunked layer."""
    model = data.model(model_id)
    for prompt in (1, 7, 1023, 1024, 1025, 4096, 8191, 8192, 8193, 16500):
        expected = 0
        for group in kv.layer_groups(model):
            for position in range(1, prompt + 1):
                if group.window is None:
                    seen = position
                elif model.local_kind == "chunked":
                    seen = (position - 1) % group.window + 1
                else:
                    seen = min(position, group.window)
                expected += group.layers * seen
        assert serving.causal_attention_pairs(model, prompt) == expected, prompt


def test_the_prefill_shows_the_tokens_its_efficiency_ramp_uses() -> None:
    """TensorRT-LLM on one H200, a 2,048-token prompt: the derivation shows T and the fitted
    T_half, and the projections' time is their FLOPs (the LM head for the last token only)
    / (P · η_comp · T / (T + T_half)), by hand."""
    from calc import calibration

    prompt = 2048
    result = run("perf", model="llama-3.1-8b", instance="p5e.48xlarge", tp=1, batch=1,
                 input_len=prompt, output_len=16, framework="tensorrt-llm")
    steps = {s["key"]: s["value"] for s in result["derivation"]}
    efficiency = calibration.stored_constants().efficiency("gpu", "tensorrt-llm")
    half = efficiency.prefill_half_tokens
    assert half > 0
    assert steps["prefill_tokens"] == prompt and steps["prefill_half_tokens"] == half
    model = data.model("llama-3.1-8b")
    eta = efficiency.prefill_compute * prompt / (prompt + half)
    assert steps["prefill_compute_s"] == pytest.approx(
        prefill_projection_flops(model, prompt, 1) / 989e12 / eta, rel=1e-9)


def test_the_prefill_pass_of_several_prompts_is_shown_and_recomputable() -> None:
    """TensorRT-LLM, Llama 3.1 8B on one H200, 256 requests of 467 in / 16 out: 256 / 16 = 16
    finish per decode step and 16 × 467 = 7,472 tokens fit the 8,192-token budget, so one pass
    prefills k = 16 prompts; the derivation shows k, T = k · s_in, and the pass's projections'
    time 2 · N · T / (P · η_comp · T / (T + T_half)); the closed loop's prefill share is
    C · t_prefill / k / cycle."""
    from calc import calibration

    result = run("perf", model="llama-3.1-8b", instance="p5e.48xlarge", tp=1, batch=256,
                 input_len=467, output_len=16, framework="tensorrt-llm")
    steps = {s["key"]: s for s in result["derivation"]}
    assert steps["prompts_per_prefill"]["value"] == 16
    assert "8192" in steps["prompts_per_prefill"]["formula"]
    assert steps["prefill_tokens"]["value"] == 16 * 467
    assert steps["prefill_tokens"]["formula"] == "T = n · s_in"
    assert steps["running_batch"]["value"] == 256 and steps["running_batch"]["formula"] == (
        "C = min(b, 256)")
    efficiency = calibration.stored_constants().efficiency("gpu", "tensorrt-llm")
    tokens = 16 * 467
    eta = efficiency.prefill_compute * tokens / (tokens + efficiency.prefill_half_tokens)
    model = data.model("llama-3.1-8b")
    assert steps["prefill_compute_s"]["value"] == pytest.approx(
        prefill_projection_flops(model, tokens, 16) / 989e12 / eta, rel=1e-9)
    t_prefill = steps["prefill_s"]["value"]
    cycle = 256 * t_prefill / 16 + 15 * steps["decode_step_s"]["value"]
    assert steps["cycle_s"]["value"] == pytest.approx(cycle)
    assert steps["prefill_share"]["value"] == pytest.approx(256 * t_prefill / 16 / cycle)
    assert steps["e2e_s"]["value"] == pytest.approx(cycle)
    # 300 requests, 256 running: the 44 others wait (b − C) · cycle / C more, shown in the
    # queue wait and e2e formulas; TPOT = (e2e − TTFT) / (s_out − 1) still holds
    over = {s["key"]: s for s in run("perf", model="llama-3.1-8b", instance="p5e.48xlarge", tp=1,
                                     batch=300, input_len=467, output_len=16,
                                     framework="tensorrt-llm")["derivation"]}
    slots = 44 * over["cycle_s"]["value"] / 256
    assert "(b − C) · cycle / C" in over["queue_wait_s"]["formula"]
    assert over["e2e_s"]["value"] == pytest.approx(over["cycle_s"]["value"] + slots)
    assert over["tpot_s"]["value"] == pytest.approx(
        (over["e2e_s"]["value"] - over["ttft_s"]["value"]) / 15)
    # one request in flight: nothing else waits, k = 1
    alone = run("perf", model="llama-3.1-8b", instance="p5e.48xlarge", tp=1, batch=1,
                input_len=467, output_len=16, framework="tensorrt-llm")
    one = {s["key"]: s["value"] for s in alone["derivation"]}
    assert one["prompts_per_prefill"] == 1 and one["prefill_tokens"] == 467
    # a framework without a budget does not show the row
    neuron = run("perf", model="llama-3.1-8b", instance="trn2.48xlarge", tp=4, batch=8,
                 input_len=467, output_len=16, framework="vllm-neuron")
    assert "prompts_per_prefill" not in {s["key"] for s in neuron["derivation"]}
