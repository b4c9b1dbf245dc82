"""The advisor keeps perf answers between calls (issue 11 speed): a kept answer never changes what
advise returns, new data forgets them all, the memo stays bounded, and the lean memory placement
the speed estimate uses decides exactly as the full memory fit does."""

from typing import Any

import pytest
from calc_helpers import run
from hypothesis import given, settings
from hypothesis import strategies as st

from calc import advise, data, memory
from calc.errors import CalcError
from calc.perf import perf

REQUESTS: list[dict[str, Any]] = [
    {"model": "llama-3.1-8b", "input_len": 1024, "output_len": 256},
    {"model": "llama-3.1-8b", "input_len": 1024, "output_len": 256, "tpot_max": 0.02},
    {"model": "llama-3.1-8b", "input_len": 1024, "output_len": 256, "request_rate": 3,
     "family": "neuron"},
    {"model": "mixtral-8x7b", "input_len": 512, "output_len": 128, "ttft_max": 0.5},
]
INSTANCES = ("inf2.xlarge", "inf2.48xlarge", "trn1.32xlarge", "trn2.48xlarge", "p5.48xlarge",
             "g5.xlarge", "g6e.12xlarge")
MODELS = ("llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b", "qwen3-30b-a3b", "qwen3-32b")


def cold(request: dict[str, Any]) -> dict[str, Any]:
    data.reset()
    return run("advise", **request)


@pytest.fixture(scope="module")
def cold_answers() -> list[dict[str, Any]]:
    return [cold(request) for request in REQUESTS]


@pytest.mark.parametrize("order", [(0, 1, 2, 3), (3, 2, 1, 0), (1, 3, 0, 2, 1, 3)])
def test_kept_evaluations_give_the_cold_answer(
    cold_answers: list[dict[str, Any]], order: tuple[int, ...],
) -> None:
    data.reset()
    for index in order:
        assert run("advise", **REQUESTS[index]) == cold_answers[index], REQUESTS[index]
    assert advise._EVALUATIONS, "the search kept nothing: the test exercises no reuse"


def test_new_data_forgets_every_kept_figure() -> None:
    run("advise", **REQUESTS[0])
    assert advise._EVALUATIONS and advise._LARGEST and advise._hourly.cache_info().currsize
    data.reset()
    assert not advise._EVALUATIONS
    assert not advise._LARGEST
    assert advise._hourly.cache_info().currsize == 0


def test_the_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    data.reset()
    monkeypatch.setattr(advise, "EVALUATIONS_KEPT", 5)
    run("advise", **REQUESTS[0])
    assert 0 < len(advise._EVALUATIONS) <= 5
    assert 0 < len(advise._LARGEST) <= 5
    data.reset()


@settings(max_examples=150, deadline=None)
@given(
    model_id=st.sampled_from(MODELS), instance_id=st.sampled_from(INSTANCES),
    batch=st.sampled_from([1, 2, 7, 32, 256]), seq_len=st.sampled_from([128, 2048, 32768]),
    tp=st.sampled_from([None, 1, 2, 4, 8, 16, 32, 64]),
    dtype=st.sampled_from([None, "bf16", "fp8"]),
)
def test_placement_decides_as_fit(
    model_id: str, instance_id: str, batch: int, seq_len: int, tp: int | None,
    dtype: str | None,
) -> None:
    model, instance = data.model(model_id), data.instance(instance_id)
    kwargs: dict[str, Any] = dict(dtype=dtype, kv_dtype=None, batch=batch, seq_len=seq_len, tp=tp)
    try:
        fitted = memory.fit(model, instance, **kwargs)
    except CalcError as fit_error:
        with pytest.raises(CalcError) as caught:
            memory.placement(model, instance, **kwargs)
        assert (caught.value.field, caught.value.key) == (fit_error.field, fit_error.key)
        return
    assert memory.placement(model, instance, **kwargs) == (fitted.tp_degree, fitted.fits)


def test_placement_refuses_a_degree_as_fit_does() -> None:
    model, instance = data.model("llama-3.1-8b"), data.instance("inf2.xlarge")
    kwargs: dict[str, Any] = dict(dtype=None, kv_dtype=None, batch=1, seq_len=1024, tp=3)
    with pytest.raises(CalcError) as by_fit:
        memory.fit(model, instance, **kwargs)
    with pytest.raises(CalcError) as by_placement:
        memory.placement(model, instance, **kwargs)
    assert (by_placement.value.field, by_placement.value.key, by_placement.value.params) == (
        by_fit.value.field, by_fit.value.key, by_fit.value.params)


@pytest.mark.parametrize("instance_id", ["inf2.48xlarge", "trn2.48xlarge", "p5.48xlarge"])
def test_perf_without_math_has_the_same_figures(instance_id: str) -> None:
    model, instance = data.model("llama-3.1-70b"), data.instance(instance_id)
    kwargs: dict[str, Any] = dict(dtype="bf16", kv_dtype=None, batch=8, input_len=1024,
                                  output_len=256, tp=None, usd_per_hour=10.0,
                                  price_missing_reason=None)
    full = perf(model, instance, **kwargs).as_dict()
    lean = perf(model, instance, explain=False, **kwargs).as_dict()
    assert full["derivation"] and lean["derivation"] == []
    assert {k: v for k, v in lean.items() if k != "derivation"} == {
        k: v for k, v in full.items() if k != "derivation"}


@pytest.mark.parametrize("lang", ["en", "ja", "es"])
def test_kept_row_text_equals_fresh_text(lang: str) -> None:
    from calc.display import advisor as shown

    results = [run("advise", **request) for request in REQUESTS]
    kept = [shown.table(result, lang) for result in results]  # second and later rows reused
    assert shown._ROWS
    again = [shown.table(result, lang) for result in results]
    shown._ROWS.clear()
    fresh = [shown.table(result, lang) for result in results]
    assert kept == fresh and again == fresh


def test_new_data_forgets_row_text() -> None:
    from calc.display import advisor as shown

    shown.table(run("advise", **REQUESTS[0]), "en")
    assert shown._ROWS
    data.reset()
    assert not shown._ROWS
