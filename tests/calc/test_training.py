"""Training FLOPs/time and training memory (recipes, ZeRO, Korthikanti activations)."""

import statistics

import pytest
from calc_helpers import error, multiplied_params, run, synthetic_model

from calc import calibration, data, frameworks, model_shape, training_speed
from calc.training_memory import activation_bytes_per_device, recipes


def test_training_flops_convention() -> None:
    # 6·N_mm·D + 12·L·h·s·D (non-causal attention scores, forward + backward; N_mm: the active
    # parameters without the untied input embedding, a lookup)
    model = data.model("llama-3.1-8b")
    result = run("train", model="llama-3.1-8b", instance="trn1.32xlarge", count=1,
                 tokens=10**9, seq_len=4096)
    expected = (6 * multiplied_params(model) * 10**9
                + 12 * model.layers * model.hidden * 4096 * 10**9)
    assert result["total_flops"] == expected
    # the result's mfu is the model-FLOPs utilisation implied by the framework's efficiency
    assert result["time_s"] == pytest.approx(
        expected / (result["peak_flops_per_s"] * result["mfu"])
    )


# Source: Neuron SDK 2.24 Trn1 training benchmark (data/measurements.toml
# trn1-llama-3.1-70b-pretrain-32n-tp32-dp4-pp8-s8192, a reference row not used in the fit):
# 65,044 tokens/s on 32 trn1.32xlarge. The fitted NxD Training efficiency (Trn1 runs of SDK
# 2.15-2.22) must carry over: the row lies inside the estimate's 80 % band.
def test_fitted_training_efficiency_reproduces_a_held_out_measurement() -> None:
    result = run("train", model="llama-3.1-70b", instance="trn1.32xlarge", count=32,
                 tokens=10**10, seq_len=8192)
    assert result["framework"] == "nxd-training"
    assert result["mfu_source"] == "training_efficiency_nxd_training_neuron_v2"
    low, high = result["error_band"]["tokens_per_s"]
    assert low < 65044.48 < high
    assert result["tokens_per_s"] == pytest.approx(65044.48, rel=0.25)


def test_recomputation_adds_flops_and_time() -> None:
    # per token, s = 4096: selective adds 4·L·h·s, full adds 2·N + 4·L·h·s (hand-computed)
    model = data.model("llama-3.1-8b")
    times = {}
    for mode in ("none", "selective", "full"):
        result = run("train", model="llama-3.1-8b", instance="trn1.32xlarge", tokens=10**9,
                     seq_len=4096, recompute=mode)
        steps = {s["key"]: s["value"] for s in result["derivation"]}
        times[mode] = result["time_s"]
        attention = 4 * model.layers * model.hidden * 4096
        extra = {"none": 0, "selective": attention,
                 "full": 2 * multiplied_params(model) + attention}[mode]
        assert steps["recompute_flops"] == pytest.approx(extra * 10**9)
        assert result["recompute"] == mode
    assert times["none"] < times["selective"] < times["full"]


def test_attention_flops_count_the_attention_width_and_sliding_windows() -> None:
    # h = 2048 but 32 heads × 128 = an attention width w of 4096; 16 layers, of which 8 slide
    # over a 512-token window: S = 8 · 4096 + 8 · 512 attended tokens at s = 4096
    model = synthetic_model(heads=32, kv_heads=8, local_layers=8, local_window=512)
    flops = training_speed.token_flops(model, 4096, "none", attention_efficiency=0.5)
    scores = (8 * 4096 + 8 * 512) * 32 * 128
    assert flops.attention_run == pytest.approx(12 * scores)
    # (the synthetic shape leaves no room for an embedding table outside its matrices: N_mm =
    # the active parameters)
    multiplied = model_shape.matmul_params(model)
    assert multiplied == model.active_params
    assert flops.model == 6 * multiplied + 12 * 16 * 2048 * 4096  # the MFU convention
    assert flops.weighted == pytest.approx(6 * multiplied + 12 * scores / 0.5)
    selective = training_speed.token_flops(model, 4096, "selective", attention_efficiency=0.5)
    assert selective.recompute == pytest.approx(4 * scores)
    full = training_speed.token_flops(model, 4096, "full", attention_efficiency=0.5)
    assert full.recompute == pytest.approx(2 * multiplied + 4 * scores)
    # a plain dense model: the executed attention equals the convention's 12·L·h·s
    llama = data.model("llama-3.1-8b")
    plain = training_speed.token_flops(llama, 4096, "none")
    assert plain.attention_run == 12 * llama.layers * llama.hidden * 4096


def test_training_derivation_shows_attention_as_run_and_recomputation() -> None:
    # Qwen3-30B-A3B: w = 32 · 128 = 4096 beside h = 2048, no windows: S = 48 · s
    model = data.model("qwen3-30b-a3b")
    result = run("train", model="qwen3-30b-a3b", instance="trn1.32xlarge", count=4,
                 tokens=10**9, seq_len=4096, recompute="selective")
    steps = {s["key"]: s["value"] for s in result["derivation"]}
    scores = 48 * 4096 * 32 * 128
    assert steps["attention_flops"] == pytest.approx(12 * scores * 10**9)
    assert steps["recompute_flops"] == pytest.approx(4 * scores * 10**9)
    # the MFU convention (total FLOPs) still counts 12·L·h·s
    assert result["total_flops"] == (6 * multiplied_params(model) + 12 * 48 * 2048 * 4096) * 10**9


def test_an_encoder_attends_to_the_whole_sequence_in_every_layer() -> None:
    bert = data.model("bert-base")                     # 12 layers, 12 heads × 64 = 768
    flops = training_speed.token_flops(bert, 512, "selective", attention_efficiency=1.0)
    assert flops.attention_run == 12 * 12 * 512 * 768
    assert flops.recompute == 4 * 12 * 512 * 768


def test_given_mfu_keeps_the_model_flops_convention() -> None:
    result = run("train", model="llama-3.1-8b", instance="trn1.32xlarge", tokens=10**9,
                 seq_len=2048, mfu=0.4, framework="neuronx-nemo-megatron")
    assert result["mfu"] == 0.4 and result["framework"] == "neuronx-nemo-megatron"
    assert result["time_s"] == pytest.approx(
        result["total_flops"] / (result["peak_flops_per_s"] * 0.4))


def test_training_cost_uses_instance_hours() -> None:
    result = run("train", model="llama-3.1-8b", instance="trn1.32xlarge", count=4,
                 tokens=10**9, seq_len=2048, mfu=0.4)
    assert result["mfu"] == 0.4
    assert result["cost_usd"] == pytest.approx(21.50 * 4 * result["time_s"] / 3600)


def test_recipes_carry_the_16_18_20_conventions_and_8bit_adam() -> None:
    totals = {name: recipe.bytes_per_param for name, recipe in recipes().items()}
    assert sorted(totals.values()) == [10, 16, 18, 20]


def test_zero_stages_shard_the_right_states() -> None:
    common = dict(model="llama-3.1-8b", instance="trn1.32xlarge", seq_len=2048, tp=8,
                  recipe="eleutherai", dp=4)
    stage = {z: run("train_memory", zero=z, **common) for z in (0, 1, 2, 3)}
    assert stage[1]["optimizer_bytes"] * 4 == pytest.approx(stage[0]["optimizer_bytes"], rel=1e-6)
    assert stage[1]["grads_bytes"] == stage[0]["grads_bytes"]
    assert stage[2]["grads_bytes"] * 4 == pytest.approx(stage[0]["grads_bytes"], rel=1e-6)
    assert stage[3]["weights_bytes"] * 4 == pytest.approx(stage[0]["weights_bytes"], rel=1e-6)
    for result in stage.values():
        parts = ("weights_bytes", "grads_bytes", "master_bytes", "optimizer_bytes",
                 "activation_bytes", "overhead_bytes")
        assert result["per_device_bytes"] == sum(result[p] for p in parts)


# Source: Korthikanti et al. 2022 (arXiv 2205.05198), Table 2 per-layer activation memory:
# none 34·sbh + 5·a·s²·b, selective 34·sbh, full 2·sbh (no TP); with TP t and SP: 34·sbh/t ...
def test_korthikanti_activation_terms() -> None:
    model = synthetic_model(layers=1, hidden=1024, heads=16)
    s, b = 2048, 2
    sbh = s * b * 1024
    none = activation_bytes_per_device(model, micro_batch=b, seq_len=s, tp=1, pp=1, sp=False,
                                       recompute="none")
    assert none == round(34 * sbh + 5 * 16 * s * s * b)
    selective = activation_bytes_per_device(model, micro_batch=b, seq_len=s, tp=1, pp=1,
                                            sp=False, recompute="selective")
    assert selective == 34 * sbh
    full = activation_bytes_per_device(model, micro_batch=b, seq_len=s, tp=1, pp=1, sp=False,
                                       recompute="full")
    assert full == 2 * sbh
    tp_sp = activation_bytes_per_device(model, micro_batch=b, seq_len=s, tp=8, pp=1, sp=True,
                                        recompute="selective")
    assert tp_sp == round(34 * sbh / 8)


def test_training_memory_errors() -> None:
    assert error("train_memory", model="llama-3.1-8b", instance="trn1.2xlarge", seq_len=128,
                 tp=4)["key"] == "tp_exceeds_cores"
    assert error("train_memory", model="llama-3.1-8b", instance="trn1.2xlarge", seq_len=128,
                 recipe="sgd")["key"] == "unknown_choice"
    assert error("train_memory", model="llama-3.1-8b", instance="trn1.2xlarge", seq_len=128,
                 zero=4)["key"] == "out_of_range"


def test_moe_models_get_their_frameworks_moe_efficiency() -> None:
    gpu, dense, moe = (data.instance("p5.48xlarge"), data.model("llama-3.1-8b"),
                       data.model("qwen3-30b-a3b"))
    assert moe.active_params < moe.params and dense.active_params == dense.params
    assert training_speed.efficiency_group(dense, gpu) == "gpu"
    assert training_speed.efficiency_group(moe, gpu) == "gpu-moe"
    nemo = frameworks.get("nemo-gpu")
    fitted = {("nemo-gpu", "gpu"): 0.5, ("nemo-gpu", "gpu-moe"): 0.2}
    assert training_speed.lookup(nemo, gpu, moe, fitted) == (
        0.2, "training_efficiency_nemo_gpu_gpu_moe")
    assert training_speed.lookup(nemo, gpu, dense, fitted) == (
        0.5, "training_efficiency_nemo_gpu_gpu")
    # a framework without MoE runs: its dense value
    assert training_speed.lookup(nemo, gpu, moe, {("nemo-gpu", "gpu"): 0.5}) == (
        0.5, "training_efficiency_nemo_gpu_gpu")
    # the fitted MoE value is the median over the framework's MoE runs, at the fitted a
    rows = training_speed.cases()
    stored = calibration.stored_constants().training
    a = stored[training_speed.ATTENTION_KEY]
    moe_runs = sorted(training_speed.achieved_efficiency(c, a) for c in rows
                      if c.framework.id == "nemo-gpu" and c.model.active_params < c.model.params)
    assert len(moe_runs) >= 5
    assert stored[("nemo-gpu", "gpu-moe")] == pytest.approx(
        float(f"{statistics.median(moe_runs):.4g}"))
    # the calculator uses it, and says so
    result = run("train", model="qwen3-30b-a3b", instance="p5.48xlarge", tokens=10**9,
                 seq_len=4096, framework="nemo-gpu")
    assert result["mfu_source"] == "training_efficiency_nemo_gpu_gpu_moe"


def test_a_default_training_framework_runs_on_the_chip_as_a_named_one_must() -> None:
    # (hardening) inf1/inf2 used to get nxd-training by default, though naming it was refused
    for instance in ("inf1.xlarge", "inf2.xlarge", "inf2.48xlarge"):
        for framework in (None, "nxd-training"):
            params = {"model": "llama-3.2-1b", "instance": instance, "tokens": 10**6,
                      "seq_len": 2048}
            if framework:
                params["framework"] = framework
            failure = error("train", **params)
            # named: the framework's field; the default: the instance's (nothing was chosen)
            field = "framework" if framework else "instance"
            assert (failure["field"], failure["key"]) == (field, "no_training_framework")
    for instance_id in data.instance_ids():
        instance = data.instance(instance_id)
        try:
            chosen = frameworks.default_for(instance, "training")
        except Exception:   # no training framework runs there: train refuses, as above
            continue
        assert chosen.supports(instance.chip.id), (instance_id, chosen.id)
    assert run("train", model="llama-3.2-1b", instance="g5.xlarge", tokens=10**6,
               seq_len=2048)["framework"] == "fsdp-gpu"


def test_every_default_framework_runs_on_the_chips_it_is_the_default_for() -> None:
    for framework in frameworks.all_frameworks().values():
        for chip in framework.default_for:
            assert framework.supports(chip), (framework.id, chip)


def test_advise_train_rejects_hardware_without_a_training_framework() -> None:
    result = run("advise_train", model="llama-3.2-1b", tokens=10**9, seq_len=2048,
                 deadline_h=100)
    ranked = {option["instance"] for option in result["options"]}
    assert not any(name.startswith("inf") for name in ranked)
    reasons = {entry["instance"]: entry["reason"]["key"] for entry in result["rejected"]}
    assert reasons["inf1.xlarge"] == reasons["inf2.xlarge"] == "no_training_framework"


def test_training_refuses_an_inference_only_dtype_and_trains_a_format_checkpoint_in_bf16() -> None:
    # (hardening) int4 / int8 / mxfp4 / fp8_block128 used to be echoed with bf16's time and cost
    for dtype in ("int4", "int8", "int4_g128", "mxfp4", "fp8_block128"):
        failure = error("train", model="llama-3.1-8b", instance="trn1.32xlarge", tokens=10**9,
                        seq_len=4096, dtype=dtype)
        assert (failure["field"], failure["key"]) == ("dtype", "unknown_choice"), dtype
        assert error("advise_train", model="llama-3.1-8b", tokens=10**9, seq_len=4096,
                     deadline_h=100, dtype=dtype)["key"] == "unknown_choice"
    # DeepSeek-V3 ships FP8 weights in 128x128 blocks: absent a dtype, training runs in their
    # compute precision (fp8) where the chip has it, never in the storage format
    assert data.model("deepseek-v3").default_dtype == "fp8_block128"
    result = run("train", model="deepseek-v3", instance="p5.48xlarge", tokens=10**9,
                 seq_len=4096, count=64)
    assert result["dtype"] == "fp8"
    result = run("train", model="deepseek-v3", instance="p4d.24xlarge", tokens=10**9,
                 seq_len=4096, count=64)   # A100: no fp8, so its default
    assert result["dtype"] == "bf16"
    # the chip's serving formats (weight_formats: Trainium2 keeps no fp8_block128 for serving)
    # do not decide training: FP8 at twice the BF16 rate (review, Stop 46)
    result = run("train", model="deepseek-v3", instance="trn2.48xlarge", tokens=10**9,
                 seq_len=4096, count=64)
    assert result["dtype"] == "fp8"


def test_train_memory_refuses_more_stages_than_layers_and_names_the_pipeline() -> None:
    failure = error("train_memory", model="llama-3.2-1b", instance="trn1.32xlarge",
                    seq_len=2048, tp=1, pp=32)
    assert (failure["field"], failure["key"]) == ("pp", "out_of_range")
    assert failure["params"]["max"] == data.model("llama-3.2-1b").layers == 16
    failure = error("train_memory", model="llama-3.2-1b", instance="trn1.32xlarge",
                    seq_len=2048, tp=4, pp=16)
    assert (failure["field"], failure["key"]) == ("pp", "split_exceeds_cores")
    failure = error("train_memory", model="llama-3.1-8b", instance="trn1.2xlarge",
                    seq_len=2048, tp=8)
    assert (failure["field"], failure["key"]) == ("tp", "tp_exceeds_cores")


# Tensor-parallel all-reduces in training (issue 15: collectives whose cost grows with tokens ×
# hidden): Megatron-style TP runs two all-reduces of the activations per layer in the forward pass,
# two in the backward and two more when full recomputation repeats the forward; a ring moves
# 2(t − 1)/t of each message per chip over the instance's published link (trn1.32xlarge:
# 384 GiB/s per chip). Hand-computed for Llama 3.1 70B (L = 80, h = 8,192) at TP 32 on 32 trn1.
def test_tensor_parallel_all_reduces_per_trained_token_by_hand() -> None:
    model, instance = data.model("llama-3.1-70b"), data.instance("trn1.32xlarge")
    devices = 32 * 32
    ring_bytes = 2 * 31 / 32 * 8192 * 2                      # one token's h · 2 B, per chip
    per_pass = 2 * 80 * ring_bytes / (384 * 2**30)           # two all-reduces per layer
    for recompute, passes in (("none", 2), ("selective", 2), ("full", 3)):
        expected = passes * per_pass * 32 / devices           # a TP group of 32 per token
        assert training_speed.collective_s_per_token(
            model, instance, 32, recompute, devices) == pytest.approx(expected, rel=1e-12)
    assert training_speed.collective_s_per_token(model, instance, 1, "full", devices) == 0.0
    # no published link (one-GPU instance): nothing to charge, 0
    assert training_speed.collective_s_per_token(
        model, data.instance("g5.xlarge"), 8, "full", 8) == 0.0


def test_fitted_efficiency_and_estimate_count_each_runs_all_reduces() -> None:
    # a run's efficiency is its weighted FLOPs over the time left after its TP all-reduces, and
    # the estimate adds them back: estimate(fit of one run alone) gives that run's tokens/s
    rows = [c for c in training_speed.cases() if c.tp > 1 and c.framework.id == "nxd-training"]
    assert rows, "NxD Training runs at TP > 1"
    case = rows[0]
    comm = case.collective_s_per_token()
    assert 0 < comm < 1 / case.tokens_per_s
    a = 0.5
    flops = training_speed.token_flops(case.model, case.seq_len, case.recompute, a)
    efficiency = training_speed.achieved_efficiency(case, a)
    assert efficiency == pytest.approx(
        flops.weighted / (case.peak() * (1 / case.tokens_per_s - comm)))
    fitted = training_speed.fit([case])
    assert training_speed.estimate(case, fitted) == pytest.approx(case.tokens_per_s, rel=1e-3)


def test_the_training_time_adds_the_layouts_all_reduces_and_shows_them() -> None:
    result = run("train", model="llama-3.1-70b", instance="trn1.32xlarge", count=32,
                 tokens=10**10, seq_len=8192)
    layout = result["training_layout"]
    steps = {s["key"]: s for s in result["derivation"]}
    devices = layout["devices"]
    expected = 10**10 * training_speed.collective_s_per_token(
        data.model("llama-3.1-70b"), data.instance("trn1.32xlarge"), layout["tp"],
        result["recompute"], devices)
    assert steps["tp_collective_s"]["value"] == pytest.approx(expected)
    assert f"(t = {layout['tp']})" in steps["tp_collective_s"]["formula"]
    if layout["tp"] > 1:
        assert expected > 0
    compute_s = result["time_s"] - steps["tp_collective_s"]["value"]
    peak = result["peak_flops_per_s"] * devices / data.instance("trn1.32xlarge").logical_cores
    per_token = training_speed.token_flops(data.model("llama-3.1-70b"), 8192,
                                           result["recompute"])
    assert compute_s == pytest.approx(
        10**10 * per_token.weighted / (peak * result["hardware_efficiency"]))
    # a larger TP degree of the same work costs more all-reduce time (2(t − 1)/t · t grows)
    model, instance = data.model("llama-3.1-70b"), data.instance("trn1.32xlarge")
    assert (training_speed.collective_s_per_token(model, instance, 32, "full", 1024)
            > training_speed.collective_s_per_token(model, instance, 8, "full", 1024))


def test_no_published_run_is_faster_than_its_all_reduces_alone() -> None:
    # the fit takes a run's efficiency on the time left after its TP all-reduces: every
    # published run (scored or not) must leave some (else its efficiency would be infinite)
    for case in training_speed.cases(all_uses=True):
        assert case.collective_s_per_token() * case.tokens_per_s < 0.5, case.id


def test_an_mfu_preset_already_holds_the_all_reduces() -> None:
    # the instance kind's MFU preset is an end-to-end figure: no all-reduce time on top of it,
    # and the math says why; a fitted efficiency (taken net of them) gets them added back
    preset = run("train", model="llama-3.1-405b", instance="p5.48xlarge", count=16,
                 tokens=10**9, seq_len=4096)
    fitted = run("train", model="llama-3.1-405b", instance="p5.48xlarge", count=16,
                 tokens=10**9, seq_len=4096, framework="nemo-gpu")
    assert preset["mfu_source"] == "mfu_training_gpu_default"
    assert preset["training_layout"]["tp"] == fitted["training_layout"]["tp"] == 2
    steps = {s["key"]: s for s in preset["derivation"]}
    assert steps["tp_collective_s"]["value"] == 0.0
    assert "inside the MFU preset" in steps["tp_collective_s"]["formula"]
    assert {s["key"]: s for s in fitted["derivation"]}["tp_collective_s"]["value"] > 0
    assert not training_speed.counts_collectives("mfu_training_gpu_default")
    assert training_speed.counts_collectives("training_efficiency_nemo_gpu_gpu")
