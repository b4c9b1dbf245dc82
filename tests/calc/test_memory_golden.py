"""Golden memory-fit cases from the Neuron documentation (each cites its source)."""

from calc_helpers import run

from calc import data
from calc.units import BYTES_PER_GB, BYTES_PER_GIB

# Source: aws-neuron/aws-neuron-sdk
# about-neuron/transformers/generative-llm-inference-with-neuron.rst (worked example):
# OPT-66B, weights as 12·L·h² params in BF16, batch 16, sequence 2048:
# 121.5 GiB weights + 72 GiB KV cache = 193.5 GiB -> 24 NeuronCores on Inf2 (TP 2, 4, 8, 12, 24).
OPT_66B = dict(
    params=12 * 64 * 9216**2, layers=64, hidden=9216, heads=72, kv_heads=72,
    dtype="bf16", batch=16, seq_len=2048,
)


def test_opt_66b_weights_and_kv_are_exact() -> None:
    assert OPT_66B["params"] == 65_229_815_808
    result = run("memory", instance="inf2.48xlarge", **OPT_66B)
    assert result["weights_bytes"] == 121.5 * BYTES_PER_GIB
    assert result["kv_cache_bytes"] == 72 * BYTES_PER_GIB
    assert result["weights_bytes"] + result["kv_cache_bytes"] == 193.5 * BYTES_PER_GIB
    assert result["kv_rule"] == "replicate_to_tp_degree"


def test_opt_66b_needs_24_neuroncores_on_inf2() -> None:
    result = run("memory", instance="inf2.48xlarge", **OPT_66B)
    assert result["min_tp_degree"] == 24
    assert result["fits"] is True
    assert result["tp_degree"] == 24


def test_opt_66b_does_not_fit_inf2_24xlarge() -> None:
    result = run("memory", instance="inf2.24xlarge", **OPT_66B)
    assert result["cores_available"] == 12
    assert result["fits"] is False
    assert result["min_tp_degree"] is None
    assert result["recommended_tp_degree"] is None


# Source: aws-neuron/aws-neuron-sdk libraries/nxd-inference/developer_guides/feature-guide.rst
# ("Examples"): Meta-Llama-3.1-8B at batch 1 in bfloat16 "requires about 16GB memory", so a
# trn1.2xlarge with 32GB device memory is sufficient.
def test_nxdi_llama_3_1_8b_about_16_gb_fits_trn1_2xlarge() -> None:
    result = run("memory", model="llama-3.1-8b", instance="trn1.2xlarge", batch=1, seq_len=2048)
    assert abs(result["weights_bytes"] + result["kv_cache_bytes"] - 16 * BYTES_PER_GB) < (
        0.05 * 16 * BYTES_PER_GB
    )
    assert result["fits"] is True
    assert result["min_tp_degree"] is not None and result["min_tp_degree"] <= 2


# Same source: Meta-Llama-3.1-70B at batch 1 in bfloat16 "requires about 148GB memory" and runs
# on 16 NeuronCores of one trn1.32xlarge (256GB).
def test_nxdi_llama_3_1_70b_about_148_gb_fits_16_cores_of_trn1_32xlarge() -> None:
    result = run(
        "memory", model="llama-3.1-70b", instance="trn1.32xlarge", batch=1, seq_len=2048, tp=16
    )
    weights_and_kv = result["weights_bytes"] + result["kv_cache_bytes"]
    assert abs(weights_and_kv - 148 * BYTES_PER_GB) < 0.05 * 148 * BYTES_PER_GB
    assert result["fits"] is True
    assert run("memory", model="llama-3.1-70b", instance="trn1.32xlarge", batch=1,
               seq_len=2048)["min_tp_degree"] == 16


# Source: neuron-runtime/explore/device-memory.rst: 96 MB micro-code per physical NeuronCore;
# Trn2 runs LNC=2 by default (about-neuron/arch/neuron-features/logical-neuroncore-config.rst).
def test_runtime_overhead_scales_with_physical_cores_per_logical_core() -> None:
    inf2 = run("memory", model="llama-3.1-8b", instance="inf2.48xlarge", seq_len=128)
    trn2 = run("memory", model="llama-3.1-8b", instance="trn2.48xlarge", seq_len=128)
    assert inf2["overhead_per_core_bytes"] == 96 * 2**20
    assert trn2["overhead_per_core_bytes"] == 2 * 96 * 2**20
    assert inf2["capacity_per_core_bytes"] == 16 * BYTES_PER_GIB
    assert trn2["capacity_per_core_bytes"] == 24 * BYTES_PER_GIB


def test_gpu_instances_use_per_gpu_memory_and_gpu_overhead() -> None:
    result = run("memory", model="llama-3.1-8b", instance="p5.48xlarge", seq_len=4096)
    chip = data.chip("nvidia-h100-80gb")
    assert result["capacity_per_core_bytes"] == chip.memory_bytes
    assert result["overhead_per_core_bytes"] == round(
        data.assumption_value("gpu_runtime_overhead_bytes")
    )
    assert result["cores_available"] == 8


# Source: Neuron SDK 2.18 inf2 decoder benchmarks (data/measurements.toml, e.g.
# inf2-llama-2-70b-tp24-b1-128-128): transformers-neuronx runs Llama-2-70B (64 heads) at TP24 on
# inf2.48xlarge; neuronx-distributed pads the query heads to a multiple of TP
# (get_number_of_extra_heads = tp − heads mod tp) and replicates the 8 KV heads to 24
# (get_shardable_head_counts, REPLICATE_TO_TP_DEGREE since 24 % 8 == 0).
def test_llama_2_70b_on_inf2_fits_with_head_padding() -> None:
    result = run("memory", model="llama-2-70b", instance="inf2.48xlarge", seq_len=256)
    assert result["fits"] is True
    assert result["heads_divisible"] is False
    # TP 1, 2, 4, 8 divide 64 heads but 8 × 16 GiB cannot hold 140 GB of weights
    assert result["min_tp_degree"] == result["min_tp_degree_with_head_padding"] == 12
    assert result["head_padding"] == 72 - 64


def test_llama_2_70b_at_tp24_pads_eight_query_heads_and_replicates_kv_to_24() -> None:
    spec = data.model("llama-2-70b")
    padded = run("memory", model="llama-2-70b", instance="inf2.48xlarge", seq_len=256, tp=24)
    unpadded = run("memory", model="llama-2-70b", instance="inf2.48xlarge", seq_len=256, tp=8)
    assert padded["head_padding"] == 8 and unpadded["head_padding"] == 0
    assert padded["heads_divisible"] is False and unpadded["heads_divisible"] is True
    # q and o projections: 8 extra heads × head_dim × hidden × 2 matrices × L layers, BF16
    extra_params = 8 * spec.head_dim * spec.hidden * 2 * spec.layers
    assert padded["weights_bytes"] - unpadded["weights_bytes"] == 2 * extra_params
    assert padded["kv_rule"] == "replicate_to_tp_degree"
    assert padded["kv_heads_per_core"] == 1
    # kv_cache_bytes is one copy (8 KV heads); the 24 replicated heads are what the cores hold
    assert padded["kv_cache_bytes"] == 2 * spec.layers * spec.head_dim * 256 * 2 * 8
    assert padded["kv_cache_replicated_bytes"] == 2 * spec.layers * spec.head_dim * 256 * 2 * 24
    assert padded["fits"] is True and unpadded["fits"] is False


# Same benchmark row: TTFT 76.6 ms, TPOT 32.9 ms at batch 1, 128 in / 128 out, TP24 (padded).
def test_perf_runs_at_a_padded_tp_degree_near_the_published_row() -> None:
    # the published row ran transformers-neuronx: compare with that framework's estimate (the
    # default, NxD Inference, has no Inf2 rows of its own and uses the group's constants)
    result = run("perf", model="llama-2-70b", instance="inf2.48xlarge", input_len=128,
                 output_len=128, tp=24, framework="transformers-neuronx")
    assert result["tp_degree"] == 24 and result["fits"] is True
    assert abs(result["ttft_s"] - 0.0766) < 0.25 * 0.0766
    assert abs(result["tpot_s"] - 0.0329) < 0.25 * 0.0329
    assert any(step["key"] == "head_padding" and step["value"] == 8
               for step in result["derivation"])
    # the default framework (NxD Inference: no Inf2 rows of its own, the neuron-v2 group's
    # constants) stays near the row too; looser, as Inf2 prefill estimates miss by about a
    # quarter at the median (inferentia2/transformers-neuronx/prefill, data/calibration.toml)
    default = run("perf", model="llama-2-70b", instance="inf2.48xlarge", input_len=128,
                  output_len=128, tp=24)
    assert abs(default["ttft_s"] - 0.0766) < 0.35 * 0.0766
    assert abs(default["tpot_s"] - 0.0329) < 0.25 * 0.0329


# Source: optimum-neuron-memory-capacity-llama-3.1-8b-inf2-2026-03-03 (huggingface/optimum-neuron
# benchmark/vllm/memory_capacity_analysis.md at 6373c379): Llama 3.1 8B Instruct, TP 8, batch 32,
# sequence 4,096, bf16 on inf2.48xlarge; sysfs peak per NeuronCore 8,029 MB on rank 0 and 5,600 MB
# on ranks 1-7 (MB = MiB: 16,384 MB per core), of which KV cache 2,048 MB on every rank.
MEASURED_RANK_0_MIB, MEASURED_OTHER_RANKS_MIB, MEASURED_KV_MIB = 8029, 5600, 2048
# ranks 1-7: collectives 126 + DMA rings 220 + model code 228 MB (the runtime's own buffers)
MEASURED_RUNTIME_BUFFERS_MIB = 126 + 220 + 228


def test_llama_3_1_8b_kv_per_core_matches_optimum_neuron_and_the_total_is_below_it() -> None:
    """The KV cache per core is the measured one; the whole per-core estimate is below what every
    rank used, and the runtime overhead it counts is below the runtime's measured buffers (rank 0's
    extra weights and those buffers are not modelled): the known limit
    docs/*/guide/how-calculators-work.md states, which these checks keep true."""
    result = run("memory", model="llama-3.1-8b", instance="inf2.48xlarge", dtype="bf16", batch=32,
                 seq_len=4096, tp=8)
    assert result["kv_cache_per_core_bytes"] == MEASURED_KV_MIB * 2**20
    assert result["per_core_bytes"] < MEASURED_OTHER_RANKS_MIB * 2**20
    assert MEASURED_OTHER_RANKS_MIB < MEASURED_RANK_0_MIB      # the first core held the most
    assert result["overhead_per_core_bytes"] < MEASURED_RUNTIME_BUFFERS_MIB * 2**20
