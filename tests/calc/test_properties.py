"""Hypothesis properties: sums, monotonicity, fit vs cores, speed bounds, bad inputs."""

import json
import math
from typing import Any

from calc_helpers import synthetic_instance, synthetic_model
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calc import api, data, memory
from calc.errors import CalcError
from calc.perf import perf

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DTYPES_BY_SIZE = ("int4", "int8", "fp8", "bf16", "fp32")
INSTANCES = ("inf2.xlarge", "inf2.48xlarge", "trn1.32xlarge", "trn2.48xlarge", "p4d.24xlarge",
             "p5.48xlarge", "g4dn.xlarge", "trn3-gen1-server")
MODELS = ("llama-3.1-8b", "llama-2-13b", "mistral-7b", "mixtral-8x7b", "llama-3.1-70b",
          "opt-66b", "gpt-oss-20b")

models = st.builds(
    synthetic_model,
    layers=st.integers(1, 96),
    hidden=st.sampled_from([512, 1024, 2048, 4096, 8192]),
    heads=st.sampled_from([8, 16, 32, 64]),
    kv_heads=st.sampled_from([1, 2, 4, 8]),
    head_dim=st.sampled_from([64, 128]),
    params=st.integers(10**6, 5 * 10**11),
    intermediate=st.integers(256, 65536),
)


def footprint(model: Any, tp: int, **overrides: Any) -> memory.Footprint:
    arguments: dict[str, Any] = dict(dtype="bf16", kv_dtype="bf16", batch=1, seq_len=128, tp=tp)
    arguments.update(overrides)
    return memory.footprint(model, synthetic_instance(64).chip, **arguments)


@FAST
@given(model=models, batch=st.integers(1, 64), seq_len=st.integers(1, 32768),
       tp=st.sampled_from([1, 2, 4, 8]))
def test_breakdowns_sum_to_totals(model: Any, batch: int, seq_len: int, tp: int) -> None:
    result = memory.fit(model, synthetic_instance(64), dtype="bf16", kv_dtype=None, batch=batch,
                        seq_len=seq_len, tp=tp)
    parts = ("weights_bytes", "kv_cache_bytes", "activation_bytes", "overhead_bytes")
    assert result.total_bytes == sum(getattr(result, p) for p in parts)
    per_core = ("weights_per_core_bytes", "kv_cache_per_core_bytes", "activation_per_core_bytes",
                "overhead_per_core_bytes")
    assert result.per_core_bytes == sum(getattr(result, p) for p in per_core)
    assert result.headroom_per_core_bytes == result.capacity_per_core_bytes - result.per_core_bytes


@FAST
@given(model=models, batch=st.integers(1, 64), seq_len=st.integers(1, 32768),
       tp=st.sampled_from([1, 2, 4, 8]), extra=st.integers(1, 64))
def test_memory_grows_with_batch_and_sequence(
    model: Any, batch: int, seq_len: int, tp: int, extra: int
) -> None:
    base = footprint(model, tp, batch=batch, seq_len=seq_len)
    assert footprint(model, tp, batch=batch + extra, seq_len=seq_len).per_core_bytes > (
        base.per_core_bytes
    )
    assert footprint(model, tp, batch=batch, seq_len=seq_len + extra).total_bytes > base.total_bytes


@FAST
@given(model=models, tp=st.sampled_from([1, 2, 4, 8]), pair=st.sampled_from(
    [(a, b) for i, a in enumerate(DTYPES_BY_SIZE) for b in DTYPES_BY_SIZE[i + 1:]]))
def test_memory_grows_with_bytes_per_element(model: Any, tp: int, pair: tuple[str, str]) -> None:
    smaller, larger = pair
    assert footprint(model, tp, dtype=smaller).weights_bytes <= footprint(
        model, tp, dtype=larger).weights_bytes
    assert footprint(model, tp, dtype=smaller).total_bytes <= footprint(
        model, tp, dtype=larger).total_bytes
    assert footprint(model, tp, kv_dtype="fp8").kv_cache_bytes <= footprint(
        model, tp, kv_dtype="bf16").kv_cache_bytes


@FAST
@given(model=models, batch=st.integers(1, 32), seq_len=st.integers(1, 16384),
       chips=st.sampled_from([1, 2, 4, 8, 16]))
def test_fit_is_monotone_in_available_cores(model: Any, batch: int, seq_len: int,
                                            chips: int) -> None:
    small = memory.fit(model, synthetic_instance(chips), dtype="bf16", kv_dtype=None,
                       batch=batch, seq_len=seq_len)
    large = memory.fit(model, synthetic_instance(chips * 2), dtype="bf16", kv_dtype=None,
                       batch=batch, seq_len=seq_len)
    if small.min_tp_degree is not None:
        assert large.min_tp_degree is not None
        assert large.min_tp_degree <= small.min_tp_degree
        assert large.fits


@FAST
@given(model_id=st.sampled_from(MODELS), instance_id=st.sampled_from(INSTANCES),
       dtype=st.sampled_from(("bf16", "fp8", "int8", "int4", "fp16")),
       batch=st.integers(1, 64), input_len=st.integers(1, 8192), output_len=st.integers(1, 4096))
def test_throughput_never_exceeds_bandwidth_or_compute_bounds(
    model_id: str, instance_id: str, dtype: str, batch: int, input_len: int, output_len: int
) -> None:
    try:
        result = perf(data.model(model_id), data.instance(instance_id), dtype=dtype,
                      kv_dtype=None, batch=batch, input_len=input_len, output_len=output_len,
                      tp=None)
    except CalcError:
        return  # e.g. no published peak, heads not divisible by any allowed TP
    assert result.output_tokens_per_s <= result.bandwidth_bound_tokens_per_s * (1 + 1e-9)
    assert result.output_tokens_per_s <= result.compute_bound_tokens_per_s * (1 + 1e-9)
    assert result.decode_bound in ("compute", "bandwidth")
    assert result.prefill_bound in ("compute", "bandwidth")


@FAST
@given(model_id=st.sampled_from(MODELS),
       setup=st.sampled_from((("p5.48xlarge", "vllm-gpu"), ("p5.48xlarge", "tensorrt-llm"),
                              ("trn2.48xlarge", "vllm-neuron"), ("inf2.48xlarge", "tgi-neuron"),
                              ("trn1.32xlarge", "nxd-inference"))),
       batch=st.integers(1, 512), input_len=st.integers(1, 16384),
       output_len=st.integers(1, 4096))
def test_latencies_are_ordered_and_positive_under_any_load(
    model_id: str, setup: tuple[str, str], batch: int, input_len: int, output_len: int
) -> None:
    """A request's wait is part of its TTFT, its TTFT part of its life, and a token never takes
    less than one decode step, at any batch and length (short outputs included)."""
    instance_id, framework = setup
    try:
        result = perf(data.model(model_id), data.instance(instance_id), dtype="bf16",
                      kv_dtype=None, batch=batch, input_len=input_len, output_len=output_len,
                      tp=None, framework=framework)
    except CalcError:
        return  # e.g. the model does not fit, or the framework does not serve it here
    step = next(s["value"] for s in result.derivation if s["key"] == "decode_step_s")
    assert 0 <= result.queue_wait_s < result.ttft_s
    assert result.ttft_s <= result.e2e_s * (1 + 1e-9)
    assert result.tpot_s >= step * (1 - 1e-9)
    assert math.isfinite(result.e2e_s) and result.output_tokens_per_s > 0


junk = st.one_of(
    st.none(), st.booleans(), st.integers(-10**20, 10**20),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(),
                                                         max_size=2),
    st.sampled_from(["nan", "inf", "-1", "0", "1e400", "12abc", "", " 7 ", "1.5"]),
)
PARAM_NAMES = ("model", "instance", "dtype", "kv_dtype", "batch", "seq_len", "tp", "params",
               "layers", "hidden", "heads", "kv_heads", "input_len", "output_len", "region",
               "hours", "count", "tokens", "mfu", "zero", "recipe", "recompute", "what", "bogus")


@settings(max_examples=300, deadline=None)
@given(kind=st.sampled_from(["memory", "perf", "train", "train_memory", "price", "compare",
                             "list", "nonsense"]),
       params=st.dictionaries(st.sampled_from(PARAM_NAMES), junk, max_size=6))
def test_any_mix_of_bad_inputs_gives_a_typed_error_and_never_raises(
    kind: str, params: dict[str, Any]
) -> None:
    response = api.run({"schema_version": 1, "kind": kind, "params": params})
    assert response["schema_version"] == 1
    json.dumps(response, allow_nan=False)  # plain JSON for the worker
    if not response["ok"]:
        failure = response["error"]
        assert failure["key"] != "internal_error", failure
        assert set(failure) == {"field", "key", "params", "message"}
        assert "\n" not in failure["message"]
    else:
        assert all(
            not isinstance(value, float) or math.isfinite(value)
            for value in response["result"].values()
        )


@settings(max_examples=100, deadline=None)
@given(request=st.one_of(junk, st.dictionaries(st.sampled_from(["kind", "params",
                                                                "schema_version"]), junk)))
def test_malformed_requests_never_raise(request: Any) -> None:
    response = api.run(request)
    assert response["ok"] is False
    assert response["error"]["key"] != "internal_error"
