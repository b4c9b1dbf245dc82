"""memory.fit's fast max_batch / max_seq_len search gives the values of the original search.

The reference below is the search memory.fit used before (doubling then bisection, one full
``memory.footprint`` per probe); it is kept here, slow, as the oracle. The fast path evaluates
footprint's per-core sum without re-deriving the weights (``memory.per_core_function``) and
gallops from a linear estimate (``memory._largest_near``); KV of sliding-window / chunked layers is
piecewise linear in the length, so the estimate can be off and the search must still be exact.
"""

import itertools
import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calc import data, memory
from calc.errors import CalcError

_SEARCH_LIMIT = 1 << 40

# MoE, MLA, sliding window, chunked attention, MXFP4 experts, encoders and dense GQA models
MODELS = ["llama-3.1-8b", "llama-3.1-70b", "deepseek-v3", "gpt-oss-120b", "gemma-3-27b",
          "mistral-7b", "llama-4-scout", "mixtral-8x7b", "qwen3-30b-a3b", "bert-base"]
INSTANCES = ["inf2.xlarge", "inf2.48xlarge", "trn1.32xlarge", "trn2.48xlarge", "p5.48xlarge",
             "g5.xlarge", "trn2-ultraserver"]


def reference_largest(fits_at: Callable[[int], bool], start: int) -> int:
    """The original search: largest n ≥ 0 with fits_at(n), doubling from start then bisection."""
    if not fits_at(1):
        return 0
    low, high = 1, max(2, start)
    while fits_at(high):
        low, high = high, high * 2
        if high > _SEARCH_LIMIT:
            return low
    while high - low > 1:
        middle = (low + high) // 2
        if fits_at(middle):
            low = middle
        else:
            high = middle
    return low


def reference_limits(
    model_id: str, instance_id: str, dtype: str | None, batch: int, seq_len: int
) -> tuple[int, int]:
    """(max_batch, max_seq_len) by the original search over full footprints."""
    model, instance = data.model(model_id), data.instance(instance_id)
    result = memory.fit(model, instance, dtype=dtype, kv_dtype=None, batch=batch, seq_len=seq_len)
    capacity = memory.capacity_per_core_bytes(instance)

    def per_core(b: int, s: int) -> int:
        return memory.footprint(
            model, instance.chip, dtype=dtype, kv_dtype=result.kv_dtype, batch=b, seq_len=s,
            tp=result.tp_degree,
        ).per_core_bytes

    max_batch = reference_largest(lambda b: per_core(b, seq_len) <= capacity, batch)
    max_seq_len = reference_largest(lambda s: per_core(batch, s) <= capacity, seq_len)
    if model.max_position_embeddings is not None:
        max_seq_len = min(max_seq_len, model.max_position_embeddings)
    return max_batch, max_seq_len


CASES = list(itertools.product(MODELS, INSTANCES, [None, "fp8"], [1, 7, 64], [1, 4000, 32768]))
SAMPLE = random.Random(11).sample(CASES, 120)


@pytest.mark.parametrize(("model_id", "instance_id", "dtype", "batch", "seq_len"), SAMPLE)
def test_fit_limits_equal_the_reference_search(
    model_id: str, instance_id: str, dtype: str | None, batch: int, seq_len: int
) -> None:
    try:
        result = memory.fit(data.model(model_id), data.instance(instance_id), dtype=dtype,
                            kv_dtype=None, batch=batch, seq_len=seq_len)
    except CalcError:
        pytest.skip("dtype not supported on this instance")
    assert (result.max_batch, result.max_seq_len) == reference_limits(
        model_id, instance_id, dtype, batch, seq_len
    )


@pytest.mark.parametrize("model_id", ["gemma-3-27b", "llama-4-scout", "mistral-7b",
                                      "deepseek-v3", "gpt-oss-120b", "bert-base"])
def test_per_core_function_equals_footprint(model_id: str) -> None:
    """Across the window of local layers (piecewise KV) and every TP degree."""
    model, instance = data.model(model_id), data.instance("trn2.48xlarge")
    window = model.local_window or 4096
    for tp, kv_dtype in itertools.product(instance.tp_degrees, ["bf16", "fp8"]):
        used = memory.footprint(model, instance.chip, dtype=None, kv_dtype=kv_dtype, batch=1,
                                seq_len=1, tp=tp)
        per_core = memory.per_core_function(model, used, kv_dtype)
        for b, s in itertools.product([1, 3, 129], [1, window - 1, window, window + 1, 10**6]):
            assert per_core(b, s) == memory.footprint(
                model, instance.chip, dtype=None, kv_dtype=kv_dtype, batch=b, seq_len=s, tp=tp
            ).per_core_bytes


@settings(max_examples=300, deadline=None)
@given(
    answer=st.integers(0, 1 << 42),
    start=st.integers(1, 1 << 41),
    hint=st.integers(1, 1 << 42),
)
def test_largest_near_equals_largest(answer: int, start: int, hint: int) -> None:
    """Any monotone predicate (answer = its largest true n), any start and estimate, including
    answers beyond the search cap, where the capped value must be kept."""
    def fits_at(n: int) -> bool:
        return n <= answer

    assert memory._largest_near(fits_at, start, hint) == reference_largest(fits_at, start)


@settings(max_examples=200, deadline=None)
@given(answer=st.integers(0, 5000), start=st.integers(1, 5000), hint=st.integers(1, 5000))
def test_largest_near_small(answer: int, start: int, hint: int) -> None:
    def fits_at(n: int) -> bool:
        return n <= answer

    assert memory._largest_near(fits_at, start, hint) == reference_largest(fits_at, start)
