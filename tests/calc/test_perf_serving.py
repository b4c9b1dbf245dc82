"""Serving physics with hand-computed expectations: MoE experts touched, padded buckets,
prefill inside the continuous-batching cycle, collectives growing with batch × hidden,
precision per phase; framework input, error band and basis on results."""

import math
from dataclasses import replace

import pytest
from calc_helpers import error, prefill_projection_flops, run, synthetic_model

from calc import collectives, data, frameworks, serving, serving_band
from calc.serving import Efficiency, Workload

EFFICIENCY = Efficiency(decode_memory=0.5, prefill_compute=0.4,
                        collective_hop_latency_s=1e-5, prefill_fixed_latency_s=0.01)


def test_experts_touched_at_batch_1_and_64() -> None:
    # E · (1 − (1 − k/E)^B): B = 1 touches exactly k experts
    assert serving.experts_touched(8, 2, 1) == pytest.approx(2.0)
    assert serving.experts_touched(128, 4, 1) == pytest.approx(4.0)
    # B = 64, E = 8, k = 2: 8 · (1 − 0.75^64) = 8 − 8 · 1.0045e-8
    assert serving.experts_touched(8, 2, 64) == pytest.approx(8 * (1 - 0.75**64))
    assert serving.experts_touched(8, 2, 64) == pytest.approx(7.99999992, abs=1e-7)
    # B = 64, E = 128, k = 4: 0.96875^64 = e^(64 · ln 0.96875) = 0.13108 → 111.22 experts
    assert serving.experts_touched(128, 4, 64) == pytest.approx(111.22, abs=0.01)
    assert serving.experts_touched(0, 0, 64) == 0.0


def test_moe_decode_streams_touched_experts_not_active_ones() -> None:
    model = data.model("mixtral-8x7b")
    per_expert_bytes = 3 * model.hidden * model.intermediate * 2   # bf16 experts
    one_token = serving.streamed_weight_bytes(model, 8, "bf16", 1)
    # batch 64 touches ~all 8 experts instead of 2: L · (8 · (1 − 0.75^64) − 2) experts more,
    # and looks up 63 more bf16 rows of the (untied) input embedding
    extra = (model.layers * (8 * (1 - 0.75**64) - 2) * per_expert_bytes
             + 63 * model.hidden * 2)
    assert serving.streamed_weight_bytes(model, 8, "bf16", 64) == pytest.approx(one_token + extra)
    assert serving.streamed_weight_bytes(model, 8, "bf16", 64) > 3 * one_token
    one = run("perf", model="mixtral-8x7b", instance="trn1.32xlarge", batch=1, input_len=128,
              output_len=64, tp=8, framework="nxd-inference")
    many = run("perf", model="mixtral-8x7b", instance="trn1.32xlarge", batch=64,
               input_len=128, output_len=64, tp=8, framework="nxd-inference")
    steps = {s["key"]: s["value"] for s in many["derivation"]}
    assert steps["experts_touched_decode"] == pytest.approx(8 * (1 - 0.75**64))
    assert many["tpot_s"] > 2 * one["tpot_s"]


def test_sequence_buckets_are_powers_of_two_capped_by_the_compiled_length() -> None:
    nxd = frameworks.get("nxd-inference")
    gpu = frameworks.get("vllm-gpu")
    assert serving.seq_bucket(100, nxd) == 128
    assert serving.seq_bucket(1500, nxd) == 2048
    assert serving.seq_bucket(1500, nxd, 4096) == 2048
    assert serving.seq_bucket(3000, nxd, 3072) == 3072     # the compiled maximum is a bucket
    assert serving.seq_bucket(1500, gpu) == 1500           # no bucketing on GPU
    assert serving.batch_bucket(1, nxd, 8) == 8
    assert serving.batch_bucket(1, gpu, 8) == 1


def test_a_graph_compiled_for_batch_8_pays_for_the_padding() -> None:
    plain = run("perf", model="llama-3.1-8b", instance="trn2.48xlarge", batch=1, input_len=1500,
                output_len=200, tp=4, framework="nxd-inference")
    padded = run("perf", model="llama-3.1-8b", instance="trn2.48xlarge", batch=1,
                 input_len=1500, output_len=200, tp=4, framework="nxd-inference",
                 compiled_batch=8)
    assert plain["padded_input_len"] == 2048 and padded["padded_batch"] == 8
    assert padded["tpot_s"] > plain["tpot_s"]
    assert padded["ttft_s"] > plain["ttft_s"]      # static prefill runs the batch-8 graph
    assert error("perf", model="llama-3.1-8b", instance="trn2.48xlarge", batch=16,
                 input_len=128, output_len=16, compiled_batch=8)["field"] == "compiled_batch"


def test_prefill_runs_inside_the_continuous_batching_cycle() -> None:
    model = synthetic_model()
    instance = data.instance("trn2.48xlarge")
    vllm = frameworks.get("vllm-neuron")
    step_fixed = 0.002
    work = Workload(batch=16, input_len=1024, output_len=128)
    served = serving.serve(model, instance, vllm, EFFICIENCY, step_fixed, tp=4, dtype="bf16",
                           kv_dtype="bf16", work=work)
    t_prefill = serving.prefill_roofline(model, instance, tp=4, dtype="bf16", batch=1,
                                         input_len=1024).time_s(EFFICIENCY, step_fixed)
    t_step = serving.decode_roofline(model, instance, tp=4, dtype="bf16", kv_dtype="bf16",
                                     batch=16, context=2048).time_s(EFFICIENCY, step_fixed)
    # the decode context 1024 + 128/2 = 1088 runs in the 2048 bucket
    cycle = 16 * t_prefill + 127 * t_step
    assert served.prefill_s == pytest.approx(t_prefill)
    assert served.step_s == pytest.approx(t_step)
    assert served.output_tokens_per_s_per_replica == pytest.approx(16 * 128 / cycle)
    assert served.output_tokens_per_s_per_replica < 16 / t_step     # below B / t_step
    share = 16 * t_prefill / cycle
    wait = 15 / 16 * (t_step / 2 + share / (1 - share) * t_prefill / 2)
    assert served.ttft_s == pytest.approx(t_prefill + wait)
    # one request in flight: continuous equals static batch 1
    single = serving.serve(model, instance, vllm, EFFICIENCY, step_fixed, tp=4, dtype="bf16",
                           kv_dtype="bf16", work=Workload(1, 1024, 128))
    static = serving.serve(model, instance, replace(vllm, batching="static"), EFFICIENCY,
                           step_fixed, tp=4, dtype="bf16", kv_dtype="bf16",
                           work=Workload(1, 1024, 128))
    assert single.ttft_s == pytest.approx(static.ttft_s)
    assert single.tpot_s == pytest.approx(static.tpot_s)


def test_requests_beyond_the_compiled_batch_wait_for_a_slot() -> None:
    model = synthetic_model()
    instance = data.instance("trn2.48xlarge")
    vllm = frameworks.get("vllm-neuron")
    at_4 = serving.serve(model, instance, vllm, EFFICIENCY, 0.0, tp=4, dtype="bf16",
                         kv_dtype="bf16", work=Workload(4, 512, 64, compiled_batch=4))
    at_8 = serving.serve(model, instance, vllm, EFFICIENCY, 0.0, tp=4, dtype="bf16",
                         kv_dtype="bf16", work=Workload(8, 512, 64, compiled_batch=4))
    assert at_8.output_tokens_per_s_per_replica == pytest.approx(
        at_4.output_tokens_per_s_per_replica)
    cycle = 4 * at_4.prefill_s + 63 * at_4.step_s
    assert at_8.ttft_s - at_4.ttft_s == pytest.approx(4 * cycle / 4)


def test_collective_bandwidth_grows_with_batch_times_hidden() -> None:
    model = data.model("llama-3.1-8b")
    instance = data.instance("trn1.32xlarge")     # NeuronLink 384 GiB/s per chip
    link = 384 * 2**30
    # 2 all-reduces × 32 layers × 2·(32−1)/32 × 64 tokens × 4096 × 2 bytes / link
    expected = 2 * 32 * 2 * 31 / 32 * 64 * 4096 * 2 / link
    assert serving.collective_bandwidth_s(model, instance, 32, 64) == pytest.approx(expected)
    assert serving.collective_bandwidth_s(model, instance, 32, 128) == pytest.approx(
        2 * expected)
    assert serving.collective_bandwidth_s(model, instance, 1, 64) == 0.0
    wide = replace(model, hidden=8192)
    assert serving.collective_bandwidth_s(wide, instance, 32, 64) == pytest.approx(2 * expected)
    # per-layer latency term: 2 all-reduces × L × 2·ceil(log2 t) steps
    roof = serving.decode_roofline(model, instance, tp=32, dtype="bf16", kv_dtype="bf16",
                                   batch=64, context=128)
    assert roof.collective_hops == 2 * 32 * 10
    assert roof.collective_bandwidth_s == pytest.approx(expected)


def test_nvlink_all_reduce_bandwidth_on_h100_and_h200() -> None:
    # H100 / H200 SXM: 18 NVLink 4 links, 900 GB/s bidirectional per GPU (NVIDIA's Hopper
    # architecture page) = 450 GB/s per direction, what a ring all-reduce sends
    model = data.model("llama-3.1-70b")
    assert (model.layers, model.hidden) == (80, 8192)
    link = 450e9
    # 2 all-reduces × 80 layers × 2·(4−1)/4 × 1,000 tokens × 8192 × 2 bytes / link
    expected = 2 * 80 * 2 * 3 / 4 * 1000 * 8192 * 2 / link
    for instance_id in ("p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge"):
        instance = data.instance(instance_id)
        assert serving.link_bytes_per_s(instance) == link
        assert serving.collective_bandwidth_s(model, instance, 4, 1000) == pytest.approx(expected)
    # A100 SXM4: 300 + 300 GB/s NVLink (Lockwood's A100 notes, from NVIDIA's datasheet)
    a100 = data.instance("p4d.24xlarge")
    assert serving.link_bytes_per_s(a100) == 300e9
    assert serving.collective_bandwidth_s(model, a100, 4, 1000) == pytest.approx(
        expected * 450 / 300)
    # one GPU, or a GPU instance without a published figure: no bandwidth term
    assert serving.collective_bandwidth_s(model, data.instance("p5.48xlarge"), 1, 1000) == 0.0
    assert serving.link_bytes_per_s(data.instance("p3dn.24xlarge")) is None
    assert serving.collective_bandwidth_s(model, data.instance("p3dn.24xlarge"), 4, 1000) == 0.0


def test_ttft_at_batch_1_is_not_free() -> None:
    result = run("perf", model="llama-3.1-8b", instance="trn1.32xlarge", batch=1, input_len=1,
                 output_len=2, tp=32, framework="transformers-neuronx")
    steps = {s["key"]: s["value"] for s in result["derivation"]}
    assert result["ttft_s"] >= steps["prefill_fixed_s"] + steps["collective_s"]
    assert result["ttft_s"] > 0.001


def test_nxd_moe_prefill_block_counts() -> None:
    # neuronx-distributed forward_blockwise: N = min(ceil((T·k − (E − 1)) / 512) + E − 1, T·k)
    assert serving.expert_blocks(128, 8, 4096) == (191, 512)     # Qwen3-30B-A3B / 235B-A22B
    assert serving.expert_blocks(16, 1, 4096) == (23, 512)       # Llama-4-Scout
    assert serving.expert_blocks(128, 1, 4096) == (135, 512)     # Llama-4-Maverick
    assert serving.expert_blocks(128, 8, 2048) == (159, 512)     # 16,257 / 512 → 32, + 127
    assert serving.expert_blocks(8, 2, 64) == (8, 64)            # T·k < 512: all experts, all T
    assert serving.expert_blocks(8, 2, 3) == (6, 1)              # T·k < E: selective loading
    assert serving.expert_blocks(0, 0, 4096) == (0, 0)           # dense


def test_moe_prefill_pays_for_the_data_its_expert_blocks_move() -> None:
    # E = 8, k = 2, 16 layers of which 4 dense: 12 MoE layers; experts of 3 · 2048 · 1024 bf16
    # weights (12 MiB), an eighth of each per core at t = 8; token rows of 2048 · 2 bytes
    moe = synthetic_model(experts=8, active_experts=2, dense_layers=4,
                          expert_intermediate=1024, active_params=400_000_000)
    instance = data.instance("trn1.32xlarge")
    weights_per_core = 3 * 2048 * 1024 * 2 // 8                   # 1,572,864 B
    one = serving.prefill_roofline(moe, instance, tp=8, dtype="bf16", batch=1, input_len=1)
    # T·k = 2 < E: selective loading, the token's 2 experts: 2 blocks of 1 row per MoE layer
    assert one.expert_block_gb == pytest.approx(12 * 2 * (weights_per_core + 1 * 4096) / 1e9)
    mid = serving.prefill_roofline(moe, instance, tp=8, dtype="bf16", batch=1, input_len=64)
    # E ≤ T·k = 128 < 512: every expert runs all 64 tokens: 8 blocks of 64 rows
    assert mid.expert_block_gb == pytest.approx(12 * 8 * (weights_per_core + 64 * 4096) / 1e9)
    long = serving.prefill_roofline(moe, instance, tp=8, dtype="bf16", batch=1, input_len=4096)
    # T·k = 8,192: ceil(8,185 / 512) + 7 = 23 blocks of 512 rows per MoE layer
    assert long.expert_block_gb == pytest.approx(12 * 23 * (weights_per_core + 512 * 4096) / 1e9)
    assert long.expert_block_gb == pytest.approx(1.012924416)
    with_experts = replace(EFFICIENCY, prefill_expert_s_per_gb=0.05)
    # 0.05 s per GB on top of the same roofline
    assert one.time_s(with_experts) - one.time_s(EFFICIENCY) == pytest.approx(
        0.05 * one.expert_block_gb)
    assert long.time_s(with_experts) - long.time_s(EFFICIENCY) == pytest.approx(
        0.05 * 1.012924416)
    decode = serving.decode_roofline(moe, instance, tp=8, dtype="bf16", kv_dtype="bf16",
                                     batch=64, context=128)
    assert decode.time_s(with_experts) == decode.time_s(EFFICIENCY)   # prefill only
    dense = serving.prefill_roofline(synthetic_model(), instance, tp=8, dtype="bf16", batch=1,
                                     input_len=64)
    assert dense.expert_block_gb == 0.0
    assert dense.time_s(with_experts) == dense.time_s(EFFICIENCY)


def test_a_single_bucket_server_pads_prompts_and_kv_to_its_compiled_length() -> None:
    vllm = frameworks.get("vllm-neuron")
    assert serving.seq_bucket(1500, vllm, 4096) == 2048              # power-of-two buckets
    assert serving.seq_bucket(1500, vllm, 4096, single=True) == 4096
    model, instance = data.model("llama-3.1-8b"), data.instance("trn2.48xlarge")
    work = serving.Workload(1, 1500, 250, 32, 4096)
    bucketed = serving.serve(model, instance, vllm, EFFICIENCY, 0.0, tp=4, dtype="bf16",
                             kv_dtype="bf16", work=work)
    single = serving.serve(model, instance, vllm, EFFICIENCY, 0.0, tp=4, dtype="bf16",
                           kv_dtype="bf16", work=replace(work, single_bucket=True))
    assert (bucketed.padded_input_len, bucketed.padded_context) == (2048, 2048)
    assert (single.padded_input_len, single.padded_context) == (4096, 4096)
    assert single.prefill_s > bucketed.prefill_s


def test_tgi_on_neuron_compiles_one_sequence_length_by_default() -> None:
    # optimum-neuron's models (TGI's Neuron backend) compile one sequence length: a 1,500-token
    # prompt on a server compiled for 4,096 tokens runs at 4,096 (vLLM on Neuron: 2,048)
    tgi, vllm = frameworks.get("tgi-neuron"), frameworks.get("vllm-neuron")
    assert tgi.single_bucket and not vllm.single_bucket
    model, instance = data.model("llama-3.1-8b"), data.instance("inf2.48xlarge")
    work = serving.Workload(1, 1500, 250, 32, 4096)
    served = {name: serving.serve(model, instance, fw, EFFICIENCY, 0.0, tp=8, dtype="bf16",
                                  kv_dtype="bf16", work=work)
              for name, fw in (("tgi", tgi), ("vllm", vllm))}
    assert (served["tgi"].padded_input_len, served["tgi"].padded_context) == (4096, 4096)
    assert (served["vllm"].padded_input_len, served["vllm"].padded_context) == (2048, 2048)
    # a deployment stated to have had buckets keeps them (2024 batch-1 exports)
    bucketed = serving.serve(model, instance, tgi, EFFICIENCY, 0.0, tp=8, dtype="bf16",
                             kv_dtype="bf16", work=replace(work, single_bucket=False))
    assert bucketed.padded_input_len == 2048
    # without a compiled length there is nothing to pad to: the power-of-two bucket
    free = serving.serve(model, instance, tgi, EFFICIENCY, 0.0, tp=8, dtype="bf16",
                         kv_dtype="bf16", work=replace(work, compiled_seq_len=None))
    assert free.padded_input_len == 2048
    result = run("perf", model="llama-3.1-8b", instance="inf2.48xlarge", batch=1,
                 input_len=1500, output_len=250, tp=8, framework="tgi-neuron",
                 compiled_batch=32, compiled_seq_len=4096)
    assert result["padded_input_len"] == 4096


def test_moe_decode_on_gpu_adds_a_share_of_the_routed_experts_streaming_time() -> None:
    # E = 8, k = 2, 12 MoE layers, experts of 3 · 2048 · 1024 bf16 weights (12 MiB each)
    moe = synthetic_model(experts=8, active_experts=2, dense_layers=4,
                          expert_intermediate=1024, active_params=400_000_000)
    instance = data.instance("p5.48xlarge")
    per_expert = 3 * 2048 * 1024 * 2
    assert serving.routed_expert_bytes(moe, "bf16", 1) == pytest.approx(12 * 2 * per_expert)
    assert serving.routed_expert_bytes(moe, "bf16", 64) == pytest.approx(
        12 * 8 * (1 - 0.75**64) * per_expert)
    assert serving.routed_expert_bytes(synthetic_model(), "bf16", 64) == 0.0
    bandwidth = instance.memory_bandwidth_per_core_bytes_per_s
    one = serving.decode_roofline(moe, instance, tp=8, dtype="bf16", kv_dtype="bf16", batch=1,
                                  context=128)
    assert one.expert_stream_s == pytest.approx(12 * 2 * per_expert / 8 / bandwidth)
    assert one.expert_matmuls == 0
    slower = replace(EFFICIENCY, decode_expert_extra=3.0)
    # x = 3: the step takes 3 × the experts' ideal streaming time more
    assert one.time_s(slower) - one.time_s(EFFICIENCY) == pytest.approx(3 * one.expert_stream_s)
    prefill = serving.prefill_roofline(moe, instance, tp=8, dtype="bf16", batch=1, input_len=64)
    assert prefill.time_s(slower) == prefill.time_s(EFFICIENCY)       # decode only
    assert prefill.expert_block_gb == 0.0        # NxD's blockwise MoE prefill is Neuron's only
    dense = serving.decode_roofline(synthetic_model(), instance, tp=8, dtype="bf16",
                                    kv_dtype="bf16", batch=1, context=128)
    assert dense.expert_stream_s == 0.0 and dense.time_s(slower) == dense.time_s(EFFICIENCY)
    gpu = run("perf", model="mixtral-8x7b", instance="p5.48xlarge", batch=8, input_len=512,
              output_len=64, tp=2)
    keys = {step["key"] for step in gpu["derivation"]}
    assert "decode_expert_s" in keys and "prefill_expert_blocks" not in keys


def test_moe_decode_on_neuron_loads_experts_as_nxd_does_and_pays_per_matmul() -> None:
    # NxD: B·k ≥ E → every expert (forward_all_experts), else B·k, one per token and choice
    assert serving.nxd_experts_loaded(8, 2, 1) == 2
    assert serving.nxd_experts_loaded(8, 2, 3) == 6                  # 6 loads, no sharing
    assert serving.nxd_experts_loaded(8, 2, 4) == 8                  # B·k = E: all experts
    assert serving.nxd_experts_loaded(128, 8, 16) == 128             # Qwen3-30B-A3B at batch 16
    assert serving.nxd_experts_loaded(128, 1, 8) == 8                # Llama-4-Maverick, batch 8
    moe = synthetic_model(experts=8, active_experts=2, dense_layers=4,
                          expert_intermediate=1024, active_params=400_000_000)
    instance = data.instance("trn1.32xlarge")
    # per loaded expert at t = 8: ⌈2048/128⌉ · (⌈256/128⌉ + ⌈128/128⌉) = 16 · 3 = 48 tiles
    assert serving.expert_matmuls_per_core(moe, 8, 2) == 12 * 2 * 48
    one = serving.decode_roofline(moe, instance, tp=8, dtype="bf16", kv_dtype="bf16", batch=1,
                                  context=128)
    full = serving.decode_roofline(moe, instance, tp=8, dtype="bf16", kv_dtype="bf16", batch=4,
                                   context=128)
    assert (one.expert_matmuls, full.expert_matmuls) == (1152, 4608)
    plain = replace(moe, gated_mlp=False)      # up alone: 16 · (⌈128/128⌉ + ⌈128/128⌉) tiles
    assert serving.expert_matmuls_per_core(plain, 8, 2) == 12 * 2 * 32
    assert one.expert_stream_s == 0.0
    per_expert = 3 * 2048 * 1024 * 2
    # batch 4 streams all 8 experts of each MoE layer (uniform routing would expect 5.5)
    grown = full.memory_s - one.memory_s
    kv_grown = (serving.kv_read_bytes_per_core(moe, 8, "bf16", 4, 128)
                - serving.kv_read_bytes_per_core(moe, 8, "bf16", 1, 128))
    bandwidth = instance.memory_bandwidth_per_core_bytes_per_s
    rows = 3 * 2048 * 2 / 8        # three more bf16 rows of the input embedding, per core
    assert grown == pytest.approx((12 * 6 * per_expert / 8 + rows + kv_grown) / bandwidth)
    per_matmul = replace(EFFICIENCY, decode_expert_matmul_ns=50.0)
    assert one.time_s(per_matmul) - one.time_s(EFFICIENCY) == pytest.approx(1152 * 50e-9)
    prefill = serving.prefill_roofline(moe, instance, tp=8, dtype="bf16", batch=1, input_len=64)
    assert prefill.time_s(per_matmul) == prefill.time_s(EFFICIENCY)   # decode only


def test_moe_prefill_expert_term_is_in_the_derivation() -> None:
    moe = run("perf", model="qwen3-30b-a3b", instance="trn2.48xlarge", batch=1,
              input_len=1500, output_len=250, tp=4, framework="vllm-neuron")
    steps = {s["key"]: s["value"] for s in moe["derivation"]}
    per_gb = data.assumption_value("vllm_neuron_trainium2_prefill_expert_s_per_gb")
    assert steps["prefill_expert_blocks"] == 159                # 1,500 tokens → the 2,048 bucket
    # 48 MoE layers · 159 blocks · (3 · 2048 · 768 · 2 B / 4 + 512 · 2048 · 2 B), by hand
    gb = 48 * 159 * (3 * 2048 * 768 * 2 // 4 + 512 * 2048 * 2) / 1e9
    assert gb == pytest.approx(34.011611136)
    assert steps["prefill_expert_block_gb"] == pytest.approx(gb)
    expected = per_gb * gb
    assert steps["prefill_expert_s"] == pytest.approx(expected)
    assert moe["ttft_s"] > expected
    dense = run("perf", model="llama-3.1-8b", instance="trn2.48xlarge", batch=1,
                input_len=1500, output_len=250, tp=4, framework="vllm-neuron")
    assert "prefill_expert_s" not in {s["key"] for s in dense["derivation"]}
    t_mm = data.assumption_value("vllm_neuron_trainium2_decode_expert_matmul_ns")
    loads = serving.nxd_experts_loaded(128, 8, moe["padded_batch"])
    assert steps["experts_touched_decode"] == loads
    # per loaded expert at t = 4: ⌈2048/128⌉ · (⌈384/128⌉ + ⌈192/128⌉) = 16 · (3 + 2) tiles
    assert steps["decode_expert_matmuls"] == 48 * loads * 16 * 5
    assert steps["decode_expert_s"] == pytest.approx(
        t_mm * 1e-9 * steps["decode_expert_matmuls"])
    assert "decode_expert_s" not in {s["key"] for s in dense["derivation"]}


def test_lower_precision_speeds_up_only_the_projections() -> None:
    model = data.model("llama-3.1-8b")
    instance = data.instance("p5.48xlarge")
    bf16 = serving.prefill_roofline(model, instance, tp=1, dtype="bf16", batch=1,
                                    input_len=32768)
    fp8 = serving.prefill_roofline(model, instance, tp=1, dtype="fp8", batch=1,
                                   input_len=32768)
    peaks = instance.chip.peak_flops_per_core
    linear = prefill_projection_flops(model, 32768, 1)
    attention = 4 * model.layers * model.heads * model.head_dim * 32768 * 32768
    assert bf16.compute_s == pytest.approx(linear / peaks["bf16"] + attention / peaks["bf16"])
    assert fp8.compute_s == pytest.approx(linear / peaks["fp8"] + attention / peaks["bf16"])
    assert bf16.compute_s / 2 < fp8.compute_s < bf16.compute_s


def test_default_framework_follows_the_hardware() -> None:
    assert run("perf", model="llama-3.1-8b", instance="trn2.48xlarge", input_len=128,
               output_len=16)["framework"] == "vllm-neuron"
    assert run("perf", model="llama-3.1-8b", instance="inf2.48xlarge", input_len=128,
               output_len=16)["framework"] == "nxd-inference"
    assert run("perf", model="llama-3.1-8b", instance="p5.48xlarge", input_len=128,
               output_len=16)["framework"] == "vllm-gpu"
    assert run("train", model="llama-3.1-8b", instance="trn1.32xlarge", tokens=10**9,
               seq_len=2048)["framework"] == "nxd-training"


def test_framework_errors_are_typed() -> None:
    wrong_hardware = error("perf", model="llama-3.1-8b", instance="trn2.48xlarge",
                           input_len=128, output_len=16, framework="tgi-neuron")
    assert (wrong_hardware["field"], wrong_hardware["key"]) == ("framework",
                                                                "framework_unsupported")
    assert "vllm-neuron" in wrong_hardware["params"]["allowed"]
    unknown = error("perf", model="llama-3.1-8b", instance="trn2.48xlarge", input_len=128,
                    output_len=16, framework="nope")
    assert unknown["key"] == "unknown_choice"
    training_one = error("perf", model="llama-3.1-8b", instance="trn1.32xlarge",
                         input_len=128, output_len=16, framework="nxd-training")
    assert training_one["key"] == "unknown_choice"


def test_every_framework_record_is_complete_and_sourced() -> None:
    source_ids = {s["id"] for s in data.records("sources")}
    chips = {c["id"] for c in data.records("chips")}
    for raw in frameworks.records():
        assert raw["phase"] in frameworks.PHASES
        assert raw["batching"] in frameworks.BATCHING_MODES
        assert raw["sources"] and set(raw["sources"]) <= source_ids, raw["id"]
        assert set(raw["chips"]) | set(raw["chips_legacy"]) <= chips, raw["id"]
        proxy = raw.get("calibration_proxy")
        assert not proxy or proxy in frameworks.all_frameworks()
        # optional model fields: typed, and cited with a note where they are set
        assert isinstance(raw.get("single_bucket", False), bool), raw["id"]
        assert not raw.get("single_bucket") or raw.get("single_bucket_note"), raw["id"]
        assert isinstance(raw.get("causal_skip", False), bool), raw["id"]
        assert not raw.get("causal_skip") or raw.get("causal_skip_note"), raw["id"]
        assert raw.get("allreduce", "ring") in collectives.ALGORITHMS, raw["id"]
        assert raw.get("allreduce", "ring") == "ring" or raw.get("allreduce_note"), raw["id"]
    # NxD Inference: Trn2/Trn3 in current releases, Inf2/Trn1 only in older ones (Neuron 2.29)
    nxd = frameworks.get("nxd-inference")
    assert nxd.chips == ("trainium2", "trainium3")
    assert set(nxd.chips_legacy) == {"inferentia2", "trainium"}
    assert frameworks.get("vllm-neuron").chips == ("trainium2", "trainium3")


def test_perf_results_carry_band_and_basis() -> None:
    result = run("perf", model="llama-3.1-70b", instance="trn1.32xlarge", batch=4,
                 input_len=1024, output_len=256, framework="transformers-neuronx")
    for field in ("tpot_s", "ttft_s", "output_tokens_per_s"):
        low, high = result["error_band"][field]
        assert 0 < low < high
        assert result["error_band_family"][field].startswith("trainium/")
    assert result["basis"] == "modelled" and result["basis_measurement_id"] is None
    keys = [step["key"] for step in result["derivation"]]
    assert "error_band_tpot_s" in keys and keys[-1] == "basis"


def test_the_band_follows_the_load_of_the_request() -> None:
    """One request in flight takes the band of the rows that show one step alone; several in
    flight take the band of the loaded rows (stored in data/calibration.toml by calibrate.py)."""
    bands = {b.family: b for b in serving_band.stored()}
    family = "trainium2/vllm-neuron/decode"
    assert {f"{family}/one-step", f"{family}/loaded"} <= set(bands)
    args = {"model": "llama-3.1-8b", "instance": "trn2.48xlarge", "input_len": 1500,
            "output_len": 250, "framework": "vllm-neuron", "tp": 4}
    quiet = run("perf", batch=1, **args)
    busy = run("perf", batch=16, **args)
    assert quiet["error_band_family"]["tpot_s"] == f"{family}/one-step"
    assert busy["error_band_family"]["tpot_s"] == f"{family}/loaded"
    for result in (quiet, busy):
        low, high = result["error_band"]["tpot_s"]
        assert low < result["tpot_s"] * 1.0001 and high > result["tpot_s"] * 0.9999
    stored_width = {k: bands[f"{family}/{k}"].log_high - bands[f"{family}/{k}"].log_low
                    for k in ("one-step", "loaded")}
    assert stored_width["one-step"] < stored_width["loaded"]


def test_a_published_configuration_is_marked_measured() -> None:
    result = run("perf", model="llama-2-70b", instance="inf2.48xlarge", batch=1, input_len=128,
                 output_len=128, tp=24, framework="transformers-neuronx")
    assert result["basis"] == "measured"
    assert result["basis_measurement_id"] == "inf2-llama-2-70b-tp24-b1-128-128"


def test_band_is_wider_outside_the_calibrated_range() -> None:
    near = run("perf", model="llama-3-8b", instance="trn1.32xlarge", batch=8, input_len=128,
               output_len=512, tp=32, framework="transformers-neuronx")
    far = run("perf", model="llama-3-8b", instance="trn1.32xlarge", batch=8, input_len=128,
              output_len=512, tp=2, framework="transformers-neuronx")
    def width(result: dict[str, object]) -> float:
        low, high = result["error_band"]["tpot_s"]  # type: ignore[index]
        return math.log(high / low)
    assert "outside_range_tp" in far["error_band_reasons"]["tpot_s"]
    assert width(far) > width(near)


def test_cli_framework_option_and_list(capsys: pytest.CaptureFixture[str]) -> None:
    from calc.cli import main

    assert main(["list", "frameworks"]) == 0
    listed = capsys.readouterr().out
    for framework_id in ("nxd-inference", "vllm-neuron", "tgi-neuron", "transformers-neuronx",
                         "vllm-gpu", "tensorrt-llm", "nxd-training", "fsdp-gpu"):
        assert framework_id in listed
    assert main(["perf", "--model", "llama-3.1-8b", "--instance", "trn2.48xlarge",
                 "--input-len", "128", "--output-len", "16", "--framework", "nxd-inference",
                 "--compiled-batch", "4", "--json"]) == 0
    assert '"framework": "nxd-inference"' in capsys.readouterr().out
    assert main(["perf", "--model", "llama-3.1-8b", "--instance", "trn2.48xlarge",
                 "--input-len", "128", "--output-len", "16", "--framework", "tgi-neuron"]) == 2


def test_compare_passes_the_framework_and_reports_bands() -> None:
    result = run("compare", model="llama-3.1-8b", instances="trn2.48xlarge,inf2.48xlarge",
                 framework="vllm-neuron", input_len=128, output_len=64)
    rows = {row["instance"]: row for row in result["rows"]}
    assert rows["trn2.48xlarge"]["framework"] == "vllm-neuron"
    assert rows["trn2.48xlarge"]["error_band"]["tpot_s"] is not None
    assert rows["inf2.48xlarge"]["framework"] == "vllm-neuron"   # legacy support on Inf2


def test_evenly_spaced_arrivals_wait_for_the_running_step_only() -> None:
    # a closed loop of 8 requests: a new one waits (7/8) · (t_step/2 + ρ/(1−ρ) · t_prefill/2);
    # the same 8 in flight from evenly spaced arrivals wait t_step/2: no prefill is queued
    model, instance = data.model("llama-3.1-8b"), data.instance("trn2.48xlarge")
    vllm = frameworks.get("vllm-neuron")
    work = serving.Workload(8, 1500, 250, 32, 4096)
    closed = serving.serve(model, instance, vllm, EFFICIENCY, 0.01, tp=4, dtype="bf16",
                           kv_dtype="bf16", work=work)
    spaced = serving.serve(model, instance, vllm, EFFICIENCY, 0.01, tp=4, dtype="bf16",
                           kv_dtype="bf16", work=replace(work, evenly_spaced_rate_per_s=0.5))
    rho = closed.prefill_share
    assert closed.queue_wait_s == pytest.approx(
        7 / 8 * (closed.step_s / 2 + rho / (1 - rho) * closed.prefill_s / 2))
    assert spaced.queue_wait_s == pytest.approx(spaced.step_s / 2)
    assert spaced.ttft_s == pytest.approx(spaced.prefill_s + spaced.step_s / 2)
    assert spaced.ttft_s < closed.ttft_s
    # each arrival's prefill stops the running decodes once: ρ = 0.5/s · t_prefill
    busy = 0.5 * spaced.prefill_s
    assert 0 < busy < 1
    assert spaced.tpot_s == pytest.approx(spaced.step_s / (1 - busy))
    assert spaced.prefill_share == pytest.approx(busy)
    assert spaced.e2e_s == pytest.approx(spaced.ttft_s + 249 * spaced.tpot_s)


def _serve(model_id: str, instance_id: str, framework_id: str, tp: int,
           work: Workload) -> serving.Serving:
    return serving.serve(data.model(model_id), data.instance(instance_id),
                         frameworks.get(framework_id), EFFICIENCY, 0.01, tp=tp, dtype="bf16",
                         kv_dtype="bf16", work=work)


def test_evenly_spaced_tpot_is_capped_by_the_full_batch_below_capacity() -> None:
    # ρ < 1 but t_step / (1 − ρ) above the full batch's TPOT: the full batch's TPOT
    work = Workload(8, 1500, 250, 32, 4096)
    probe = _serve("llama-3.1-8b", "trn2.48xlarge", "vllm-neuron", 4, work)
    full = _serve("llama-3.1-8b", "trn2.48xlarge", "vllm-neuron", 4,
                  replace(work, batch=32))
    rate = 0.99 / probe.prefill_s          # ρ = 0.99: t_step / 0.01 = 100 · t_step
    spaced = _serve("llama-3.1-8b", "trn2.48xlarge", "vllm-neuron", 4,
                    replace(work, evenly_spaced_rate_per_s=rate))
    assert 100 * spaced.step_s > full.tpot_s
    assert spaced.tpot_s == pytest.approx(full.tpot_s)
    assert spaced.prefill_share == pytest.approx(full.prefill_share)


def test_evenly_spaced_cap_uses_the_full_batch_step_without_bucketing() -> None:
    # vLLM on a GPU pads nothing: the full batch (default limit 256) has its own, slower step
    work = Workload(4, 1500, 250)
    spaced = _serve("llama-3.1-8b", "p5en.48xlarge", "vllm-gpu", 1,
                    replace(work, evenly_spaced_rate_per_s=1e6))
    full = _serve("llama-3.1-8b", "p5en.48xlarge", "vllm-gpu", 1, replace(work, batch=256))
    assert full.step_s > spaced.step_s
    assert spaced.tpot_s == pytest.approx(full.tpot_s)


def test_evenly_spaced_without_a_running_limit_has_no_cap() -> None:
    # vllm-neuron without a compiled batch has no running-batch limit: t_step / (1 − ρ) below
    # capacity; at ρ ≥ 1 the closed loop at C
    work = Workload(2, 1500, 250, None, 4096)
    probe = _serve("llama-3.1-8b", "trn2.48xlarge", "vllm-neuron", 4, work)
    spaced = _serve("llama-3.1-8b", "trn2.48xlarge", "vllm-neuron", 4,
                    replace(work, evenly_spaced_rate_per_s=0.9 / probe.prefill_s))
    assert spaced.tpot_s == pytest.approx(spaced.step_s / 0.1)
    over = _serve("llama-3.1-8b", "trn2.48xlarge", "vllm-neuron", 4,
                  replace(work, evenly_spaced_rate_per_s=2.0 / probe.prefill_s))
    assert over.tpot_s == pytest.approx(probe.tpot_s)


def test_a_short_output_closed_loop_keeps_tpot_at_least_one_step() -> None:
    # 32 running requests, 4,000-token prompts, 2 output tokens: ρ ≈ 1 and the first-order
    # wait would exceed the cycle. vLLM's budget of 8,192 tokens prefills k = 8192 / 4000 =
    # 2.048 prompts per pass (t_pf) on average, so each prompt costs t_pf / k; the wait stops at
    # the other prompts' share, (32 − k) · t_pf / k, so TPOT ≥ t_step
    served = _serve("llama-3.1-8b", "p5en.48xlarge", "vllm-gpu", 1, Workload(32, 4000, 2))
    t_pf, t_step, k = served.prefill_s, served.step_s, served.prompts_per_prefill
    assert k == pytest.approx(8192 / 4000)
    assert served.queue_wait_s == pytest.approx((32 - k) * t_pf / k)
    assert served.ttft_s == pytest.approx(t_pf + (32 - k) * t_pf / k)
    cycle = 32 * t_pf / k + t_step
    assert served.tpot_s == pytest.approx(cycle - t_pf - (32 - k) * t_pf / k)
    assert served.tpot_s == pytest.approx(t_step)
    one = _serve("llama-3.1-8b", "p5en.48xlarge", "vllm-gpu", 1, Workload(8, 4000, 1))
    k1 = one.prompts_per_prefill
    assert k1 == pytest.approx(8192 / 4000)
    assert one.ttft_s == pytest.approx(one.prefill_s + (8 - k1) * one.prefill_s / k1)
    assert math.isfinite(one.e2e_s)
    # without a token budget (vLLM on Neuron: one prompt per prefill), as before: the wait
    # stops at the other 31 prefills
    neuron = _serve("llama-3.1-8b", "trn2.48xlarge", "vllm-neuron", 4,
                    Workload(32, 4000, 2, 32, 8192))
    assert neuron.prompts_per_prefill == 1
    assert neuron.queue_wait_s == pytest.approx(31 * neuron.prefill_s)
    assert neuron.ttft_s == pytest.approx(32 * neuron.prefill_s)
    assert neuron.tpot_s >= neuron.step_s - 1e-12


@pytest.mark.parametrize(("running", "out", "prompt", "budget", "expected"), (
    (256, 16, 467, 8192, 16.0),      # 16 requests finish per iteration; 17.5 prompts would fit
    (256, 16, 1024, 8192, 8.0),      # the budget binds: 8 prompts of 1,024 tokens
    (256, 2048, 128, 8192, 1.0),     # long outputs: less than one request finishes per iteration
    (32, 2, 4000, 8192, 2.048),      # the budget binds: 2 prompts and a chunk of a third
    (100, 24, 467, 8192, 100 / 24),  # between 4 and 5 prompts a pass: the mean
    (100, 10, 9000, 8192, 1.0),      # a prompt above the budget still runs (alone)
    (256, 16, 467, None, 1.0),       # no budget: one prompt per prefill
    (256, 16, 467, 32768, 16.0),
))
def test_prompts_per_prefill_by_hand(running: int, out: int, prompt: int,
                                     budget: int | None, expected: float) -> None:
    # k = max(1, min(budget / prompt, C / s_out))
    assert serving.prompts_per_prefill(running, out, prompt, budget) == pytest.approx(expected)


@pytest.mark.parametrize(("efficiency", "prompt", "slack"), (
    (EFFICIENCY, 467, 0.0),
    # the fitted constants, whose prefill ramp (T_half > 0) makes a larger pass run more
    # efficiently: one more request may lower TTFT a little, never by 1 % (whole prompts per
    # pass, k 1 -> 2 at 32 requests, had lowered it by 16 %)
    (None, 128, 0.01),
))
def test_more_requests_in_flight_do_not_serve_faster(efficiency: Efficiency | None, prompt: int,
                                                     slack: float) -> None:
    # the mean n moves smoothly with C: one more request in flight does not lower TTFT or TPOT
    # (beyond `slack`) or raise the throughput by more than it adds (TensorRT-LLM, 8B on one
    # H200, 16-token outputs; at TP 1, so no all-reduce changes algorithm on the way)
    from calc import calibration

    constants = calibration.stored_constants()
    fw = frameworks.get("tensorrt-llm")
    eff = efficiency or constants.efficiency("gpu", fw.id)
    step = 0.0025 if efficiency else constants.step(fw, "gpu")
    model, instance = data.model("llama-3.1-8b"), data.instance("p5e.48xlarge")
    before = None
    for batch in range(1, 300):
        served = serving.serve(model, instance, fw, eff, step, tp=1, dtype="bf16",
                               kv_dtype="bf16", work=Workload(batch, prompt, 16))
        now = (served.ttft_s, served.tpot_s, served.output_tokens_per_s_per_replica)
        if before is not None:
            assert now[0] >= before[0] * (1 - slack) - 1e-12, batch
            assert now[1] >= before[1] * (1 - slack) - 1e-12, batch
            assert now[2] <= before[2] * batch / (batch - 1) + 1e-9, batch
        before = now


def test_tensorrt_llm_prefills_the_waiting_prompts_in_one_pass() -> None:
    # Llama 3.1 70B on 4 × H100, 256 running, 467 in / 16 out: TensorRT-LLM's 8,192-token budget
    # (frameworks.toml) admits the 16 prompts that replace the 16 requests finishing each step;
    # the pass is one prefill roofline of 16 × 467 tokens, and a request's TTFT is at least it
    fw = frameworks.get("tensorrt-llm")
    assert fw.max_num_tokens == 8192
    model, instance = data.model("llama-3.1-70b"), data.instance("p5.48xlarge")
    served = serving.serve(model, instance, fw, EFFICIENCY, 0.01, tp=4, dtype="bf16",
                           kv_dtype="bf16", work=Workload(256, 467, 16))
    assert served.prompts_per_prefill == 16 and served.prefill.tokens == 16 * 467
    one_pass = serving.prefill_roofline(model, instance, tp=4, dtype="bf16", batch=16,
                                        input_len=467, allreduce=fw.allreduce,
                                        causal_skip=fw.causal_skip)
    assert served.prefill_s == pytest.approx(one_pass.time_s(EFFICIENCY, 0.01))
    assert served.ttft_s >= served.prefill_s
    # the cycle of the closed loop: 256 prompts at t_pass / 16 each, then 15 decode steps
    cycle = 256 * served.prefill_s / 16 + 15 * served.step_s
    assert served.e2e_s == pytest.approx(cycle)
    assert served.prefill_share == pytest.approx(256 * served.prefill_s / 16 / cycle)
    # one prompt at a time would cost more engine time per prompt (a smaller GEMM, its own
    # weight stream and fixed latency), so the batched cycle is shorter
    single = serving.serve(model, instance, replace(fw, max_num_tokens=None), EFFICIENCY, 0.01,
                           tp=4, dtype="bf16", kv_dtype="bf16", work=Workload(256, 467, 16))
    assert single.prompts_per_prefill == 1
    assert served.e2e_s < single.e2e_s
    # evenly spaced arrivals find no other prompt waiting: one per prefill
    spaced = serving.serve(model, instance, fw, EFFICIENCY, 0.01, tp=4, dtype="bf16",
                           kv_dtype="bf16",
                           work=Workload(256, 467, 16, evenly_spaced_rate_per_s=1.0))
    assert spaced.prompts_per_prefill == 1


def test_evenly_spaced_arrivals_beyond_capacity_run_the_full_batch() -> None:
    # at a rate whose prefills alone would take all the engine's time, TPOT is the saturated
    # one: the closed loop with the running batch full (compiled batch 32), hand-computed
    model, instance = data.model("llama-3.1-8b"), data.instance("trn2.48xlarge")
    vllm = frameworks.get("vllm-neuron")
    work = serving.Workload(8, 1500, 250, 32, 4096, evenly_spaced_rate_per_s=1000.0)
    spaced = serving.serve(model, instance, vllm, EFFICIENCY, 0.01, tp=4, dtype="bf16",
                           kv_dtype="bf16", work=work)
    t_pf, t_step = spaced.prefill_s, spaced.step_s
    cycle = 32 * t_pf + 249 * t_step
    rho = 32 * t_pf / cycle
    wait = 31 / 32 * (t_step / 2 + rho / (1 - rho) * t_pf / 2)
    assert spaced.tpot_s == pytest.approx((cycle - t_pf - wait) / 249)
    full = serving.serve(model, instance, vllm, EFFICIENCY, 0.01, tp=4, dtype="bf16",
                         kv_dtype="bf16", work=serving.Workload(32, 1500, 250, 32, 4096))
    assert spaced.tpot_s == pytest.approx(full.tpot_s)
    assert spaced.ttft_s == pytest.approx(t_pf + t_step / 2)


def test_evenly_spaced_cap_batches_the_waiting_prompts_like_the_closed_loop() -> None:
    # vLLM on a GPU at an offered rate far above capacity: the TPOT cap is the closed loop with
    # the running batch full (256), whose waiting prompts share passes (k = 256 / 16 = 16),
    # not one prompt per prefill
    work = Workload(8, 467, 16)
    spaced = _serve("llama-3.1-8b", "p5en.48xlarge", "vllm-gpu", 1,
                    replace(work, evenly_spaced_rate_per_s=1e6))
    full = _serve("llama-3.1-8b", "p5en.48xlarge", "vllm-gpu", 1, replace(work, batch=256))
    assert full.prompts_per_prefill == pytest.approx(16.0)
    assert spaced.prompts_per_prefill == 1.0      # its own arrivals find no prompt waiting
    assert spaced.tpot_s == pytest.approx(full.tpot_s)


def test_kv_read_once_per_query_head_by_hand() -> None:
    # Llama 2 70B: 80 layers, 64 query heads, 8 KV heads of 128. TP 4, FP8 KV (1 byte), one
    # sequence at 1,000 tokens: a core holds 2 KV heads, 80 · 1000 · 2 (K, V) · 2 · 128 · 1 B
    model = data.model("llama-2-70b")
    assert (model.layers, model.heads, model.kv_heads, model.head_dim) == (80, 64, 8, 128)
    held = 80 * 1000 * 2 * 2 * 128
    assert serving.kv_read_bytes_per_core(model, 4, "fp8", 1, 1000) == held == 40_960_000
    # TensorRT-LLM 0.6.1's kernel: one thread block per query head, 16 per core, each loading
    # its KV head: 16 / 2 = 8 times the bytes
    assert serving.kv_read_bytes_per_core(model, 4, "fp8", 1, 1000, True) == 8 * held
    # TP 16: the 8 KV heads are replicated to one per core, 4 query heads read it
    one_head = 80 * 1000 * 2 * 1 * 128
    assert serving.kv_read_bytes_per_core(model, 16, "fp8", 1, 1000) == one_head
    assert serving.kv_read_bytes_per_core(model, 16, "fp8", 1, 1000, True) == 4 * one_head
    # as many KV heads as query heads (Llama 2 7B) or a latent (MLA): nothing to repeat
    for model_id in ("llama-2-7b", "deepseek-v3"):
        other = data.model(model_id)
        assert serving.kv_read_bytes_per_core(other, 8, "bf16", 2, 500, True) == \
            serving.kv_read_bytes_per_core(other, 8, "bf16", 2, 500)


def test_a_framework_reading_kv_per_query_head_pays_it_in_the_decode_step() -> None:
    model, instance = data.model("llama-2-70b"), data.instance("p5.48xlarge")
    current = frameworks.get("tensorrt-llm")
    assert current.kv_read_per_query_head is False     # XQA, the default since 0.8
    work = Workload(batch=64, input_len=2048, output_len=2048)
    shared, per_head = (
        serving.serve(model, instance, fw, EFFICIENCY, 0.0, tp=2, dtype="fp8", kv_dtype="fp8",
                      work=work)
        for fw in (replace(current, batching="static"),
                   replace(current, batching="static", kv_read_per_query_head=True)))
    # 32 query heads and 4 KV heads per GPU: the decode step reads the KV cache 8 times over
    assert per_head.decode.kv_memory_s == pytest.approx(8 * shared.decode.kv_memory_s)
    assert per_head.decode.memory_s - shared.decode.memory_s == pytest.approx(
        7 * shared.decode.kv_memory_s)
    assert per_head.tpot_s > shared.tpot_s and per_head.ttft_s == shared.ttft_s


def test_serving_carries_the_running_limit_it_applied() -> None:
    # one rule for the limit: serve() applies it and show-the-math prints it from the result
    model, instance = data.model("llama-3.1-8b"), data.instance("p5.48xlarge")
    trt = frameworks.get("tensorrt-llm")
    assert trt.default_max_batch == 256

    def served(framework: frameworks.Framework, batch: int,
               compiled: int | None = None) -> serving.Serving:
        return serving.serve(model, instance, framework, EFFICIENCY, 0.0, tp=1, dtype="bf16",
                             kv_dtype="bf16", work=Workload(batch, 128, 64, compiled))

    assert served(trt, 300).running_limit == 256 and served(trt, 300).running_batch == 256
    assert served(trt, 300, 400).running_limit == 400
    assert served(replace(trt, default_max_batch=None), 300).running_limit is None
    assert served(replace(trt, batching="static"), 8).running_limit is None
    result = run("perf", model="llama-3.1-8b", instance="p5.48xlarge", batch=300,
                 input_len=128, output_len=64, tp=1, framework="tensorrt-llm")
    row = next(r for r in result["derivation"] if r["key"] == "running_batch")
    assert row["formula"] == "C = min(b, 256)" and row["value"] == 256


def test_a_burst_run_by_hand() -> None:
    # guidellm 0.1.0's throughput profile: the first B requests arrive at once, the prompts are
    # prefilled one per pass (no token budget on Neuron), first tokens at t_p, 2 t_p, ... B t_p
    model, instance = data.model("llama-3.1-8b"), data.instance("trn1.32xlarge")
    fw = frameworks.get("vllm-neuron")
    assert fw.max_num_tokens is None and fw.batching == "continuous"

    def served(run: float | None) -> serving.Serving:
        return serving.serve(model, instance, fw, EFFICIENCY, 0.0, tp=8, dtype="bf16",
                             kv_dtype="bf16", work=Workload(4, 1024, 101, 32,
                                                            burst_run_requests=run))

    steady, every_one, twice = served(None), served(4), served(8)
    t_p, step = steady.prefill_s, steady.step_s
    # N = B = 4: all in the burst; mean TTFT (1 + 2 + 3 + 4)/4 · t_p; each then waits for the
    # later prefills, (3 + 2 + 1 + 0)/4 · t_p, over its 100 later tokens, at the step
    assert every_one.ttft_s == pytest.approx(2.5 * t_p)
    assert every_one.tpot_s == pytest.approx(step + 1.5 * t_p / 100)
    assert every_one.e2e_s == pytest.approx(every_one.ttft_s + 100 * every_one.tpot_s)
    assert every_one.queue_wait_s == pytest.approx(1.5 * t_p)
    # N = 8: half the requests in the burst, half in the closed loop at C = 4
    assert twice.ttft_s == pytest.approx(0.5 * 2.5 * t_p + 0.5 * steady.ttft_s)
    assert twice.tpot_s == pytest.approx(0.5 * (step + 1.5 * t_p / 100) + 0.5 * steady.tpot_s)
    # more requests in flight than the run has: the burst is the run (B = N = 2)
    assert served(2).ttft_s == pytest.approx(1.5 * t_p)


def test_a_burst_run_with_a_token_budget_prefills_prompts_together() -> None:
    # a GPU engine with a budget of 8,192 tokens: 16 prompts of 1,024 in 2 passes of 8
    model, instance = data.model("llama-3.1-8b"), data.instance("p5.48xlarge")
    fw = frameworks.get("vllm-gpu")
    assert fw.max_num_tokens == 8192
    result = serving.serve(model, instance, fw, EFFICIENCY, 0.0, tp=1, dtype="bf16",
                           kv_dtype="bf16", work=Workload(16, 1024, 101,
                                                          burst_run_requests=16))
    pass_s = serving.prefill_roofline(model, instance, tp=1, dtype="bf16", batch=8,
                                      input_len=1024, allreduce=fw.allreduce,
                                      causal_skip=fw.causal_skip).time_s(EFFICIENCY, 0.0)
    assert result.ttft_s == pytest.approx(1.5 * pass_s)
    assert result.tpot_s == pytest.approx(result.step_s + 0.5 * pass_s / 100)


def test_a_burst_larger_than_the_running_batch() -> None:
    # 12 requests sent at once to an engine that runs 4, each prompt its own pass, 100 more
    # tokens each. vLLM's first tokens come one by one, so slots free one by one: only the first
    # 4 are a burst (staircase mean 2.5 t_p), the other 8 see the closed loop at 12 in flight
    model, instance = data.model("llama-3.1-8b"), data.instance("trn1.32xlarge")
    fw = frameworks.get("vllm-neuron")

    def served(work: Workload, framework: frameworks.Framework = fw) -> serving.Serving:
        return serving.serve(model, instance, framework, EFFICIENCY, 0.0, tp=8, dtype="bf16",
                             kv_dtype="bf16", work=work)

    burst = served(Workload(12, 1024, 101, 4, burst_run_requests=12))
    steady = served(Workload(12, 1024, 101, 4))
    t_p, step = burst.prefill_s, burst.step_s
    assert burst.ttft_s == pytest.approx(4 / 12 * 2.5 * t_p + 8 / 12 * steady.ttft_s)
    assert burst.tpot_s == pytest.approx(4 / 12 * (step + 1.5 * t_p / 100)
                                         + 8 / 12 * steady.tpot_s)
    # all 12 sent at once: the run lasts three generations of 4 (test below), not C · s_out / e2e
    assert burst.output_tokens_per_s_per_replica == pytest.approx(
        12 * 101 / (3 * (4 * t_p + 100 * step)))
    # the tool's cap stated (burst_arrivals): 12 sent at once though 6 are in flight on average
    stated = served(Workload(6, 1024, 101, 4, burst_run_requests=12, burst_arrivals=12))
    steady6 = served(Workload(6, 1024, 101, 4))
    assert stated.ttft_s == pytest.approx(4 / 12 * 2.5 * t_p + 8 / 12 * steady6.ttft_s)
    # a server that returns a call's first tokens together keeps its waves aligned: three
    # waves of 4, first tokens at 4 t_p into each, a wave 4 t_p + 100 steps after the one
    # before; the run's throughput is its 12 requests' tokens over the three waves
    aligned = served(Workload(12, 1024, 101, 4, burst_run_requests=12),
                     replace(fw, wave_prefill=True))
    wave_s = 4 * t_p + 100 * step
    assert aligned.ttft_s == pytest.approx(4 * t_p + (0 + 1 + 2) / 3 * wave_s)
    assert aligned.tpot_s == pytest.approx(step)
    assert aligned.output_tokens_per_s_per_replica == pytest.approx(12 * 101 / (3 * wave_s))
    # one output token: no second token to wait for
    one_token = served(Workload(4, 1024, 1, 4, burst_run_requests=4))
    assert one_token.tpot_s == pytest.approx(one_token.step_s)


def test_a_burst_sent_all_at_once_lasts_until_its_last_request() -> None:
    # guidellm's cap above the run's N: all N requests go out together, so the run's throughput
    # is its tokens over the time until the last one completes, 4 slots at a time: generations
    # of 4 lasting 4 t_p + 100 steps each (each request waits for its generation's later
    # prefills), a partial last one at its own batch; not C · s_out / mean e2e (Little's law)
    model, instance = data.model("llama-3.1-8b"), data.instance("trn1.32xlarge")
    fw = frameworks.get("vllm-neuron")
    assert not fw.wave_prefill

    def served(work: Workload) -> serving.Serving:
        return serving.serve(model, instance, fw, EFFICIENCY, 0.0, tp=8, dtype="bf16",
                             kv_dtype="bf16", work=work)

    four, two = served(Workload(4, 1024, 101, 4)), served(Workload(2, 1024, 101, 4))
    t_p = four.prefill_s
    generation_4 = 4 * t_p + 100 * four.step_s
    generation_2 = 2 * t_p + 100 * two.step_s
    twelve = served(Workload(6, 1024, 101, 4, burst_run_requests=12, burst_arrivals=12))
    assert twelve.output_tokens_per_s_per_replica == pytest.approx(
        12 * 101 / (3 * generation_4))
    ten = served(Workload(6, 1024, 101, 4, burst_run_requests=10, burst_arrivals=10))
    assert ten.output_tokens_per_s_per_replica == pytest.approx(
        10 * 101 / (2 * generation_4 + generation_2))
    # fewer than the running limit: one generation of all of them, whatever C says
    few = served(Workload(3, 1024, 101, 32, burst_run_requests=4, burst_arrivals=4))
    assert few.output_tokens_per_s_per_replica == pytest.approx(
        4 * 101 / (4 * t_p + 100 * served(Workload(4, 1024, 101, 32)).step_s))
    # the TTFT and TPOT are the burst's (test_a_burst_larger_than_the_running_batch): only
    # the throughput reads the run's length; a run whose later requests are sent as earlier
    # ones complete (arrivals below N) keeps Little's law at its C in flight
    later = served(Workload(6, 1024, 101, 4, burst_run_requests=12, burst_arrivals=6))
    assert later.output_tokens_per_s_per_replica == pytest.approx(6 * 101 / later.e2e_s)
    # ... and so does a run the tool stopped at its time limit with requests still running
    timed = served(Workload(6, 1024, 101, 4, burst_run_requests=12, burst_arrivals=12,
                            burst_run_timed=True))
    assert timed.output_tokens_per_s_per_replica == pytest.approx(6 * 101 / timed.e2e_s)


def test_a_round_on_tgi_neuron_gets_its_first_tokens_together() -> None:
    # LLMPerf's rounds: 8 requests sent at once to one server with a batch of 8. TGI on Neuron
    # prefills them in one call, one after another, and returns every first token at its end:
    # TTFT = 8 t_p for all, then the wave decodes at the step
    model, instance = data.model("llama-3-70b"), data.instance("trn1.32xlarge")
    vllm = frameworks.get("vllm-neuron")
    # the transformers-neuronx-era TGI (its measurements set wave_prefill)
    tgi = replace(frameworks.get("tgi-neuron"), wave_prefill=True)
    assert not vllm.wave_prefill and not frameworks.get("tgi-neuron").wave_prefill

    def served(framework: frameworks.Framework, batch: int, compiled: int,
               run: float | None) -> serving.Serving:
        return serving.serve(model, instance, framework, EFFICIENCY, 0.0, tp=32, dtype="bf16",
                             kv_dtype="bf16", work=Workload(batch, 1500, 245, compiled,
                                                            burst_run_requests=run))

    wave = served(tgi, 8, 8, 8)
    t_p, step = wave.prefill_s, wave.step_s
    assert wave.ttft_s == pytest.approx(8 * t_p)
    assert wave.tpot_s == pytest.approx(step)
    assert wave.e2e_s == pytest.approx(8 * t_p + 244 * step)
    (weight, roof), (rest, _) = wave.ttft_prefills
    assert weight == pytest.approx(8.0) and rest == pytest.approx(0.0)
    assert roof.time_s(EFFICIENCY, 0.0) == pytest.approx(t_p)
    # a round's throughput: its 8 requests' tokens over the wave's time
    wave_s = 8 * t_p + 244 * step
    assert wave.output_tokens_per_s_per_replica == pytest.approx(8 * 245 / wave_s)
    # 12 at once, 8 slots: a wave of 8 (first tokens at 8 t_p), then one of 4 when it ends
    # (first tokens 4 t_p into it); the round lasts both waves
    more = served(tgi, 12, 8, 12)
    assert more.ttft_s == pytest.approx((8 * 8 * t_p + 4 * (wave_s + 4 * t_p)) / 12)
    assert more.ttft_prefills[0][0] == pytest.approx((8 * 8 + 4 * (8 + 4)) / 12)
    assert more.tpot_s == pytest.approx(step)
    assert more.output_tokens_per_s_per_replica == pytest.approx(
        12 * 245 / (wave_s + 4 * t_p + 244 * step))
    # vLLM returns each first token when its prefill ends: the staircase, (8 + 1)/2 t_p
    staircase = served(vllm, 8, 8, 8)
    assert staircase.ttft_s == pytest.approx(4.5 * staircase.prefill_s)


def test_a_queued_run_lasts_its_whole_generations_and_a_partial_last_one() -> None:
    # the pure rule, with a lifetime of 4 s + 6 ms per request in flight (10 s at 1,000):
    # 3,000 requests, 1,000 at a time -> 3 whole generations; only the last one is asked for
    calls: list[int] = []

    def lifetime_of(batch: int) -> float:
        calls.append(batch)
        return 4.0 + batch * 0.006
    assert serving.queued_run_throughput(3000, 1000, 100, 10.0, lifetime_of) == pytest.approx(
        3000 * 100 / (2 * 10.0 + 10.0))
    assert calls == []            # a whole last generation runs at the batch already known
    # one request past two whole generations: a last generation of one (never above the batch)
    assert serving.queued_run_throughput(2001, 1000, 100, 10.0, lifetime_of) == pytest.approx(
        2001 * 100 / (2 * 10.0 + 4.006))
    assert calls == [1]
    # 2,500: two whole generations, then 500 at their own batch (7 s)
    assert serving.queued_run_throughput(2500, 1000, 100, 10.0, lifetime_of) == pytest.approx(
        2500 * 100 / (2 * 10.0 + 7.0))
    # fewer requests than slots: one generation of all of them
    assert serving.queued_run_throughput(600, 1000, 100, 10.0, lifetime_of) == pytest.approx(
        600 * 100 / (4.0 + 600 * 0.006))
    # serve(): trtllm-bench's 3,000 requests of 128 / 2048 tokens at 700 in flight on one H100
    model, instance = data.model("llama-3.1-8b"), data.instance("p5.48xlarge")
    trt = frameworks.get("tensorrt-llm")

    def served(batch: int, queued: float | None = None) -> serving.Serving:
        return serving.serve(model, instance, trt, EFFICIENCY, 0.0, tp=1, dtype="fp8",
                             kv_dtype="fp8", work=Workload(batch, 128, 2048, 4096,
                                                           queued_requests=queued))

    steady, queued = served(700), served(700, 3000)
    last = served(3000 - 4 * 700)          # 5 generations, the last of 200
    assert queued.output_tokens_per_s_per_replica == pytest.approx(
        3000 * 2048 / (4 * steady.cycle_s + last.cycle_s))
    assert queued.output_tokens_per_s_per_replica < steady.output_tokens_per_s_per_replica
    # the run's TTFT and TPOT are the steady loop's at the batch in flight
    assert (queued.ttft_s, queued.tpot_s) == (steady.ttft_s, steady.tpot_s)


def test_an_aligned_wave_lasts_until_its_longest_request() -> None:
    # LLMPerf draws each request's output length from N(245, 20) and waits for the whole round:
    # a round of 8 lasts until its longest, 245 + 20 · e(8) tokens (e(8) = 1.4236), and its
    # throughput is the 8 requests' mean tokens over that time
    model, instance = data.model("llama-3-70b"), data.instance("trn1.32xlarge")
    tgi = replace(frameworks.get("tgi-neuron"), wave_prefill=True)

    def served(framework: frameworks.Framework, batch: int, sd: float | None) -> serving.Serving:
        return serving.serve(model, instance, framework, EFFICIENCY, 0.0, tp=32, dtype="bf16",
                             kv_dtype="bf16", work=Workload(batch, 1500, 245, 8,
                                                            burst_run_requests=batch,
                                                            output_len_sd=sd))

    fixed, spread = served(tgi, 8, None), served(tgi, 8, 20)
    t_p, step = spread.prefill_s, spread.step_s
    longest = 245 + 20 * 1.4236003
    assert spread.output_tokens_per_s_per_replica == pytest.approx(
        8 * 245 / (8 * t_p + (longest - 1) * step))
    assert fixed.output_tokens_per_s_per_replica == pytest.approx(
        8 * 245 / (8 * t_p + 244 * step))
    # one wave: the first tokens and the step do not depend on the other requests' lengths
    assert spread.ttft_s == pytest.approx(fixed.ttft_s)
    assert spread.tpot_s == pytest.approx(fixed.tpot_s)
    # 12 at once on 8 slots: the second wave (4) starts when the first's longest has ended, and
    # the round ends with the second wave's longest (e(4) = 1.0294)
    more = served(tgi, 12, 20)
    first_wave = 8 * t_p + (longest - 1) * step
    assert more.ttft_s == pytest.approx((8 * 8 * t_p + 4 * (first_wave + 4 * t_p)) / 12)
    assert more.output_tokens_per_s_per_replica == pytest.approx(
        12 * 245 / (first_wave + 4 * t_p + (245 + 20 * 1.0293754 - 1) * step))
    # a lone request has no spread to wait for; staggered waves (vLLM) free slots one by one
    assert served(tgi, 1, 20).output_tokens_per_s_per_replica == pytest.approx(
        served(tgi, 1, None).output_tokens_per_s_per_replica)
    vllm = frameworks.get("vllm-neuron")
    assert served(vllm, 8, 20).output_tokens_per_s_per_replica == pytest.approx(
        served(vllm, 8, None).output_tokens_per_s_per_replica)


def test_a_chunked_prefill_runs_padded_calls_that_attend_to_the_chunks_before() -> None:
    # 1,500 tokens in chunks of 1,024: two calls of 1,024 tokens (the second padded from 476),
    # the first attending to its own 1,024 keys, the second to 2,048; counted over the full
    # square as on Neuron: 1,024 · (1,024 + 2,048) query-key pairs per layer
    model, instance = synthetic_model(), data.instance("inf2.48xlarge")
    chunked = serving.prefill_roofline(model, instance, tp=8, dtype="bf16", batch=1,
                                       input_len=1500, chunk=1024)
    whole = serving.prefill_roofline(model, instance, tp=8, dtype="bf16", batch=1,
                                     input_len=2048)
    peak = instance.chip.peak_flops_per_core["bf16"]
    width = model.heads * model.head_dim
    assert (chunked.passes, chunked.tokens, whole.passes) == (2, 1024, 1)
    assert chunked.attention_compute_s == pytest.approx(
        4 * model.layers * 1024 * (1024 + 2048) * width / peak / 8)
    assert whole.attention_compute_s == pytest.approx(
        4 * model.layers * 2048 * 2048 * width / peak / 8)
    # the same 2,048 tokens through the projections, the weights read once per call
    # (the LM head once per call: the two calls run it twice, the whole prompt once)
    linear = serving.prefill_matmul_flops(model, 8, 2048, 2) / peak / 8
    assert chunked.compute_s - chunked.attention_compute_s == pytest.approx(linear)
    # each call reads its own 1,024 rows of the input embedding (2,048 in all), the whole
    # prompt its 2,048 once: twice the whole prompt's reads less 2,048 rows
    bandwidth = instance.memory_bandwidth_per_core_bytes_per_s
    assert bandwidth is not None
    assert chunked.memory_s == pytest.approx(
        2 * whole.memory_s - 2048 * model.hidden * 2 / 8 / bandwidth)
    assert chunked.collective_hops == 2 * whole.collective_hops
    # each call pays the fixed latency and the framework's step cost once
    bare = replace(EFFICIENCY, prefill_fixed_latency_s=0.0)
    assert chunked.time_s(EFFICIENCY, 0.002) - chunked.time_s(bare, 0.0) == pytest.approx(
        2 * (0.01 + 0.002))
    # NxD's chunked-prefill graph reads the whole compiled cache, masked: with a 4,096-token
    # cache each call attends to 4,096 + 1,024 keys on the full square
    cached = serving.prefill_roofline(model, instance, tp=8, dtype="bf16", batch=1,
                                      input_len=1500, chunk=1024, chunk_cache=4096)
    assert cached.attention_compute_s == pytest.approx(
        4 * model.layers * 2 * 1024 * (4096 + 1024) * width / peak / 8)
    assert cached.compute_s - cached.attention_compute_s == pytest.approx(linear)
    # a prompt that fits one chunk is one call, padded to the chunk
    short = serving.prefill_roofline(model, instance, tp=8, dtype="bf16", batch=1,
                                     input_len=500, chunk=1024)
    one = serving.prefill_roofline(model, instance, tp=8, dtype="bf16", batch=1,
                                   input_len=1024)
    assert short == one


def test_a_chunked_server_serves_whole_chunks_instead_of_its_bucket() -> None:
    model, instance = synthetic_model(), data.instance("inf2.48xlarge")
    framework = frameworks.get("vllm-neuron")
    # optimum-neuron compiles one sequence length: whole prompts are padded to it (4,096), chunked
    # ones run two calls of 1,024 that each read the 4,096-token cache
    work = Workload(batch=1, input_len=1500, output_len=250, compiled_batch=32,
                    compiled_seq_len=4096, single_bucket=True)
    whole = serving.serve(model, instance, framework, EFFICIENCY, 0.0, tp=8, dtype="bf16",
                          kv_dtype="bf16", work=work)
    chunked = serving.serve(model, instance, framework, EFFICIENCY, 0.0, tp=8, dtype="bf16",
                            kv_dtype="bf16", work=replace(work, prefill_chunk_tokens=1024))
    assert (whole.padded_input_len, whole.prefill.passes, whole.prefill.tokens) == (4096, 1, 4096)
    assert (chunked.padded_input_len, chunked.prefill.passes, chunked.prefill.tokens) \
        == (2048, 2, 1024)
    assert chunked.prefill == serving.prefill_roofline(
        model, instance, tp=8, dtype="bf16", batch=1, input_len=1500,
        allreduce=framework.allreduce, chunk=1024, chunk_cache=4096)
    assert chunked.prefill_s == pytest.approx(chunked.prefill.time_s(EFFICIENCY, 0.0))
    # decode is untouched: one graph at the compiled length
    assert chunked.step_s == whole.step_s and chunked.padded_context == 4096


def test_a_chunked_prefill_with_flash_attention_counts_each_window_once() -> None:
    # where the kernel skips masked blocks, the calls of a chunked prefill together attend to the
    # causal pairs of the padded prompt (2,048 tokens): per full-attention layer 2,048 · 2,049 / 2,
    # per sliding-window layer (w = 512) w (w + 1) / 2 + (2,048 - w) · w
    model = synthetic_model(local_layers=8, local_window=512, local_kind="sliding")
    instance = data.instance("p5.48xlarge")
    chunked = serving.prefill_roofline(model, instance, tp=1, dtype="bf16", batch=1,
                                       input_len=1500, causal_skip=True, chunk=1024)
    pairs = 8 * 2048 * 2049 // 2 + 8 * (512 * 513 // 2 + (2048 - 512) * 512)
    peak = instance.chip.peak_flops_per_core["bf16"]
    assert chunked.attention_compute_s == pytest.approx(
        4 * pairs * model.heads * model.head_dim / peak)
