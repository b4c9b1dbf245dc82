"""The tensor-parallel all-reduce per framework (calc/collectives.py): which algorithm a message
takes, its latency steps and bytes, by hand from the frameworks' own selection rules."""

import pytest
from calc_helpers import run

from calc import collectives, data, frameworks, serving
from calc.serving import Efficiency, Workload

MB = 1_000_000
KIB = 1024


def test_ring_is_the_collective_library_all_reduce() -> None:
    one = collectives.all_reduce("ring", 8, 4 * MB, nvlink=True)
    assert (one.algorithm, one.ring_steps, one.custom_steps) == ("ring", 6, 0)
    assert one.bytes_per_chip == pytest.approx(2 * 7 / 8 * 4 * MB)
    assert collectives.all_reduce("ring", 1, 4 * MB, nvlink=True).bytes_per_chip == 0.0


@pytest.mark.parametrize(("tp", "message", "expected"), [
    (2, 15.9 * MB, "one-shot"),     # t ≤ 2: one-shot within the 16 MB workspace
    (2, 16 * MB, "one-shot"),       # messageSizeBytes <= maxWorkspaceSize
    (2, 16 * MB + 2, "ring"),       # beyond the workspace: NCCL
    (4, 8 * MB + 2, "ring"),        # t > 2: 8 MB workspace
    (4, 0.99 * MB, "one-shot"),     # t ≤ 4: one-shot below 1 MB
    (4, 1.0 * MB, "ring"),          # two-shot disabled: NCCL
    (8, 0.49 * MB, "one-shot"),     # t > 4: one-shot below 0.5 MB
    (8, 0.5 * MB, "ring"),
])
def test_tensorrt_llm_auto_strategy(tp: int, message: float, expected: str) -> None:
    assert collectives.all_reduce("trtllm-auto", tp, message, nvlink=True).algorithm == expected


def test_tensorrt_llm_without_nvlink_uses_nccl() -> None:
    assert collectives.all_reduce("trtllm-auto", 2, 1000, nvlink=False).algorithm == "ring"


def test_one_shot_reads_every_peer_message_in_one_step() -> None:
    one = collectives.all_reduce("trtllm-auto", 8, 100_000, nvlink=True)
    assert (one.ring_steps, one.custom_steps) == (0, 1)
    assert one.bytes_per_chip == pytest.approx(7 * 100_000)


@pytest.mark.parametrize(("tp", "message", "nvlink", "expected"), [
    (2, 4 * MB, True, "one-shot"),             # two GPUs: one stage at any size below 8 MiB
    (2, 100 * KIB, False, "ring"),             # no NVLink: calc assumes NCCL (P2P unknown)
    (4, 511 * KIB, True, "one-shot"),          # t ≤ 4: one stage below 512 KiB
    (4, 512 * KIB, True, "two-stage"),
    (8, 255 * KIB, True, "one-shot"),          # t ≤ 8: one stage below 256 KiB
    (8, 256 * KIB, True, "two-stage"),
    (8, 8 * 1024 * KIB, True, "ring"),         # max_size 8 MiB: NCCL
    (4, 100 * KIB, False, "ring"),             # above 2 GPUs without NVLink: NCCL
    (3, 100 * KIB, True, "ring"),              # world sizes 2, 4, 6, 8 only
])
def test_vllm_custom_all_reduce(tp: int, message: float, nvlink: bool, expected: str) -> None:
    assert collectives.all_reduce("vllm-custom", tp, message, nvlink=nvlink).algorithm == expected


def test_two_stage_pays_two_steps_and_the_ring_bytes() -> None:
    two = collectives.all_reduce("vllm-custom", 8, 1 * MB, nvlink=True)
    assert (two.ring_steps, two.custom_steps) == (0, 2)
    assert two.bytes_per_chip == pytest.approx(2 * 7 / 8 * MB)


def test_frameworks_name_a_known_algorithm() -> None:
    for framework in frameworks.all_frameworks().values():
        assert framework.allreduce in collectives.ALGORITHMS
    assert frameworks.get("tensorrt-llm").allreduce == "trtllm-auto"
    assert frameworks.get("vllm-gpu").allreduce == "vllm-custom"
    assert frameworks.get("fastertransformer").allreduce == "ring"
    assert frameworks.get("vllm-neuron").allreduce == "ring"


def test_tensorrt_llm_decode_on_h100_pays_one_shot_steps_by_hand() -> None:
    # Llama-3.1-70B (80 layers, h 8192) at TP 4 on p5 (NVLink, 450 GB/s per direction):
    # batch 8 → 8 · 8192 · 2 B = 131,072 B < 1 MB → one-shot: 2 · 80 steps at c_custom and
    # 2 · 80 · 3 · 131,072 B / 450 GB/s; batch 64 → 1,048,576 B ≥ 1 MB → NCCL ring
    model = data.model("llama-3.1-70b")
    instance = data.instance("p5.48xlarge")
    small = serving.decode_roofline(model, instance, tp=4, dtype="bf16", kv_dtype="bf16",
                                    batch=8, context=512, allreduce="trtllm-auto")
    assert (small.collective_hops, small.custom_allreduce_steps) == (0, 160)
    assert small.collective_bandwidth_s == pytest.approx(160 * 3 * 131_072 / 450e9)
    large = serving.decode_roofline(model, instance, tp=4, dtype="bf16", kv_dtype="bf16",
                                    batch=64, context=512, allreduce="trtllm-auto")
    assert (large.collective_hops, large.custom_allreduce_steps) == (160 * 4, 0)
    assert large.collective_bandwidth_s == pytest.approx(160 * 2 * 3 / 4 * 1_048_576 / 450e9)


def test_the_custom_steps_cost_their_own_latency() -> None:
    model = data.model("llama-3.1-70b")
    instance = data.instance("p5.48xlarge")
    roof = serving.decode_roofline(model, instance, tp=4, dtype="bf16", kv_dtype="bf16",
                                   batch=8, context=512, allreduce="trtllm-auto")
    base = Efficiency(1.0, 0.5, 1e-5)
    slower = Efficiency(1.0, 0.5, 1e-5, custom_allreduce_step_s=20e-6)
    assert roof.time_s(slower) - roof.time_s(base) == pytest.approx(160 * 20e-6)
    # the ring latency does not apply to one-shot steps
    ring_only = Efficiency(1.0, 0.5, 1.0)
    assert roof.time_s(ring_only) == pytest.approx(roof.time_s(Efficiency(1.0, 0.5, 0.0)))


def test_serve_runs_the_framework_algorithm() -> None:
    model = data.model("llama-3.1-70b")
    instance = data.instance("p5.48xlarge")
    work = Workload(1, 128, 16)
    eff = Efficiency(1.0, 0.5, 1e-5, custom_allreduce_step_s=3e-5)
    trt = serving.serve(model, instance, frameworks.get("tensorrt-llm"), eff, 0.0, tp=4,
                        dtype="bf16", kv_dtype="bf16", work=work)
    assert trt.decode.custom_allreduce_steps == 160 and trt.decode.collective_hops == 0
    # 128 prompt tokens · 8192 · 2 B = 2 MB ≥ 1 MB: the prefill goes to NCCL
    assert trt.prefill.collective_hops == 160 * 4 and trt.prefill.custom_allreduce_steps == 0
    ft = serving.serve(model, instance, frameworks.get("fastertransformer"), eff, 0.0, tp=4,
                       dtype="bf16", kv_dtype="bf16", work=work)
    assert ft.decode.custom_allreduce_steps == 0 and ft.decode.collective_hops == 160 * 4


def test_the_derivation_names_the_prefill_all_reduce() -> None:
    result = run("perf", model="llama-3.1-8b", instance="p5.48xlarge", batch=1, input_len=16,
                 output_len=8, tp=2, framework="tensorrt-llm")
    formula = {s["key"]: s["formula"] for s in result["derivation"]}["collective_s"]
    assert "one-shot" in formula and "c_custom" in formula


def test_the_decode_fit_recovers_the_two_all_reduce_latencies() -> None:
    """Synthetic static-batch TPOTs on p5 from known constants: 70B at TP 4 and 8, batches from 1
    (one-shot) to 128 (NCCL), plus 8B at TP 1; the decode fit returns c_custom and c_hop."""
    from dataclasses import replace

    from calc import calibration

    # η_comp at the fit's starting value: without TTFTs the decode fit keeps it, and at TP 8 and
    # batch 128 the projections' FLOPs are near the weights' streaming time
    truth = Efficiency(0.8, calibration.DEFAULT_EFFICIENCY.prefill_compute, 5e-6,
                       custom_allreduce_step_s=20e-6)
    step_s = 0.002
    template = next(c for c in calibration.cases() if c.framework.id == "tensorrt-llm"
                    and c.instance.id == "p5.48xlarge")
    static = replace(frameworks.get("tensorrt-llm"), batching="static")
    rows = []
    for model_id, tps in (("llama-3.1-70b", (4, 8)), ("llama-3.1-8b", (1,))):
        for tp in tps:
            for batch in (1, 4, 16, 64, 128):
                case = replace(template, id=f"{model_id}-{tp}-{batch}", model=data.model(model_id),
                               framework=static, tp=tp, batch=batch, input_len=512,
                               output_len=128, dtype="bf16", kv_dtype="bf16",
                               compiled_batch=None, compiled_seq_len=None, ttft_s=None,
                               request_rate_per_s=None, replica_loads=(),
                               evenly_spaced_rate_per_s=None)
                served = serving.serve(case.model, case.instance, static, truth, step_s, tp=tp,
                                       dtype="bf16", kv_dtype="bf16", work=case.work)
                rows.append(replace(case, tpot_s=served.tpot_s))
    assert any(r.tp == 8 and r.batch == 1 for r in rows)
    fitted, steps = calibration._fit_group(rows, None, {})
    # the passes go on until the constants settle (calibration.SETTLED: two units of the 4th digit)
    assert fitted.custom_allreduce_step_s == pytest.approx(20e-6, rel=2e-3)
    assert fitted.collective_hop_latency_s == pytest.approx(5e-6, rel=2e-3)
    assert fitted.decode_memory == pytest.approx(0.8, rel=2e-3)
    # (the step cost is fitted last in each pass: within a settling tolerance plus the 4th-digit
    # rounding of the others, 3e-3)
    assert steps["tensorrt-llm"] == pytest.approx(step_s, rel=3e-3)
