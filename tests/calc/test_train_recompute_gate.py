"""The training fit gate and the time are for one setup (QA: train fit-gated by a full-recompute
layout while timed for the recompute mode asked; advise-train timed for another mode than its
layout's): a given ``recompute`` limits the memory check to that mode; without it, the time is
the mode of the layout that fits; advise-train times each option with its layout's mode."""

from typing import Any

import pytest
from calc_helpers import run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calc import api
from calc.fit_gate_api import recompute_candidates

SPEED_AND_COST = ("time_s", "time_h", "tokens_per_s", "cost_usd", "instance_hours",
                  "peak_flops_per_s")
MODES = ("none", "selective", "full")
# 8-bit Adam (10 B/param), named: at the default recipe (20 B/param) no mode fits 70B on two
# trn1, and these tests are about which recompute mode is chosen
QA_70B = {"model": "llama-3.1-70b", "instance": "trn1.32xlarge", "count": 2, "seq_len": 8192,
          "tokens": 10**10, "recipe": "adam_8bit"}
# selective (the Neuron training default) fits no layout here; full does
LONG_70B = {**QA_70B, "seq_len": 32768}
QA_ADVISE = {"model": "llama-3.1-8b", "tokens": 10**10, "seq_len": 4096, "deadline_h": 24,
             "family": "neuron"}


def respond(kind: str, **params: Any) -> dict[str, Any]:
    return api.run({"schema_version": 1, "kind": kind, "params": params})


def steps(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {step["key"]: step for step in result["derivation"]}


def assert_one_setup(result: dict[str, Any]) -> None:
    """A fitting train answer: its time is the mode of its layout, and train with that mode
    given gives the same time and cost."""
    layout = result["training_layout"]
    assert layout is not None
    assert result["recompute"] == layout["recompute"]
    again = run("train", model=result["model"], instance=result["instance"],
                count=result["count"], tokens=result["tokens"], seq_len=result["seq_len"],
                recompute=layout["recompute"], recipe=layout["recipe"])
    assert again["fits"] is True
    assert again["training_layout"]["recompute"] == layout["recompute"]
    assert again["time_s"] == result["time_s"]
    assert again["cost_usd"] == result["cost_usd"]


# ---------------------------------------------------------------- recompute given


def test_qa_recompute_none_on_70b_does_not_fit() -> None:
    result = run("train", **QA_70B, recompute="none")
    assert result["fits"] is False
    assert result["training_layout"] is None
    assert result["recompute"] == "none"
    for field in SPEED_AND_COST:
        assert result[field] is None, field
    reason = result["fit_reason"]
    assert reason["key"] == "training_does_not_fit"
    assert reason["params"]["per_device_bytes"] > reason["params"]["capacity_per_device_bytes"]
    assert result["suggestions"], "more instances are suggested"
    for suggestion in result["suggestions"]:
        assert suggestion["params"]["recompute"] == "none"
        more = run("train", **suggestion["params"])
        assert more["fits"] is True
        assert more["training_layout"]["recompute"] == "none"


def test_qa_premise_train_memory_with_no_recompute_never_fits() -> None:
    for tp in (1, 8, 32):
        for pp in (1, 8, 32):
            for zero in (1, 3):
                response = respond("train_memory", model="llama-3.1-70b",
                                   instance="trn1.32xlarge", count=2, seq_len=8192,
                                   recompute="none", tp=tp, pp=pp, zero=zero, sp=True)
                assert not response["ok"] or response["result"]["fits"] is False, (tp, pp, zero)


def test_given_mode_that_does_not_fit_is_never_replaced_by_another() -> None:
    selective = run("train", **LONG_70B, recompute="selective")
    assert selective["fits"] is False and selective["time_s"] is None
    assert selective["recompute"] == "selective"
    full = run("train", **LONG_70B, recompute="full")
    assert full["fits"] is True
    assert full["training_layout"]["recompute"] == "full"
    assert full["recompute"] == "full"


@pytest.mark.parametrize("mode", MODES)
def test_a_given_mode_is_the_layouts_and_the_times(mode: str) -> None:
    result = run("train", model="llama-3.1-8b", instance="trn1.32xlarge", count=4,
                 tokens=10**10, seq_len=4096, recompute=mode)
    assert result["fits"] is True
    assert result["recompute"] == result["training_layout"]["recompute"] == mode
    assert f"recompute: {mode}" in steps(result)["framework"]["formula"]


# ---------------------------------------------------------------- recompute not given


def test_qa_70b_without_recompute_times_the_layouts_mode() -> None:
    result = run("train", **QA_70B)
    assert result["fits"] is True
    assert_one_setup(result)


def test_default_mode_that_does_not_fit_times_the_mode_that_does() -> None:
    result = run("train", **LONG_70B)
    assert result["fits"] is True
    assert result["training_layout"]["recompute"] == "full"
    assert result["recompute"] == "full"
    shown = steps(result)
    assert "recompute: full" in shown["framework"]["formula"]
    assert "(full)" in shown["recompute_flops"]["formula"]
    full = run("train", **LONG_70B, recompute="full")
    assert result["time_s"] == full["time_s"] and result["cost_usd"] == full["cost_usd"]
    assert result["derivation"] == full["derivation"]


def test_one_time_estimate_per_train_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """The memory check comes first, so the time is estimated once, for the layout's mode
    (it used to be estimated for the default mode, then again for the layout's)."""
    import calc.flops

    modes: list[str | None] = []
    original = calc.flops.train

    def counted(*args: Any, **kwargs: Any) -> Any:
        modes.append(kwargs.get("recompute"))
        return original(*args, **kwargs)

    monkeypatch.setattr(calc.flops, "train", counted)
    result = run("train", **LONG_70B)
    assert modes == ["full"]
    assert result["recompute"] == "full"


def test_default_mode_is_kept_when_it_fits() -> None:
    result = run("train", model="llama-3.1-8b", instance="trn1.32xlarge", count=4,
                 tokens=10**10, seq_len=4096)
    assert result["recompute"] == result["training_layout"]["recompute"] == "selective"
    assert_one_setup(result)


def test_unpublished_peak_names_the_layouts_mode() -> None:
    result = run("train", model="llama-3.1-8b", instance="p4d.24xlarge", dtype="fp32",
                 tokens=10**9, seq_len=4096)
    assert result["fits"] is True and result["time_s"] is None
    assert result["recompute"] == result["training_layout"]["recompute"]


def test_recompute_candidates() -> None:
    assert recompute_candidates("selective") == ("selective", "full")
    assert recompute_candidates("none") == ("none", "selective", "full")
    assert recompute_candidates("full") == ("full",)
    for mode in MODES:
        assert recompute_candidates("selective", mode) == (mode,)


GRID_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b", "mistral-7b", "llama-3.2-1b")
GRID_INSTANCES = ("trn1.32xlarge", "trn1.2xlarge", "trn2.48xlarge", "p4d.24xlarge",
                  "p5.48xlarge", "g5.xlarge")


@pytest.mark.parametrize(("model", "instance", "count", "seq_len"), [
    ("llama-3.1-8b", "trn1.2xlarge", 8, 32768),
    ("llama-3.1-70b", "p4d.24xlarge", 8, 32768),
    ("llama-3.1-70b", "p5.48xlarge", 4, 32768),
    ("mixtral-8x7b", "trn1.32xlarge", 2, 32768),
    ("mistral-7b", "trn1.2xlarge", 8, 32768),
    ("llama-3.1-8b", "trn2.48xlarge", 1, 8192),
    ("llama-3.1-8b", "g5.xlarge", 8, 4096),
])
def test_fitting_train_is_one_setup(model: str, instance: str, count: int,
                                    seq_len: int) -> None:
    result = run("train", model=model, instance=instance, count=count, tokens=10**10,
                 seq_len=seq_len)
    assert result["fits"] is True
    assert_one_setup(result)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(model=st.sampled_from(GRID_MODELS), instance=st.sampled_from(GRID_INSTANCES),
       count=st.sampled_from([1, 2, 4, 8]), seq_len=st.sampled_from([2048, 8192, 32768]),
       mode=st.sampled_from([None, *MODES]))
def test_every_fitting_train_is_one_setup(model: str, instance: str, count: int, seq_len: int,
                                          mode: str | None) -> None:
    params: dict[str, Any] = {"model": model, "instance": instance, "count": count,
                              "tokens": 10**10, "seq_len": seq_len}
    if mode is not None:
        params["recompute"] = mode
    result = run("train", **params)
    if not result["fits"]:
        assert result["training_layout"] is None
        for field in SPEED_AND_COST:
            assert result[field] is None, field
        return
    if mode is not None:
        assert result["training_layout"]["recompute"] == mode
    assert_one_setup(result)


# ---------------------------------------------------------------- advise-train


def assert_options_are_one_setup(result: dict[str, Any], params: dict[str, Any]) -> None:
    assert result["options"]
    recipe = {"recipe": params["recipe"]} if "recipe" in params else {}
    for option in result["options"]:
        assert option["layout"]["recipe"] == params.get("recipe", "deepspeed")
        train = run("train", model=params["model"], tokens=params["tokens"],
                    seq_len=params["seq_len"], instance=option["instance"],
                    count=option["instance_count"], recompute=option["recompute"], **recipe)
        assert train["fits"] is True
        plain = run("train", model=params["model"], tokens=params["tokens"],
                    seq_len=params["seq_len"], instance=option["instance"],
                    count=option["instance_count"], **recipe)   # train picks the same mode
        assert plain["recompute"] == option["recompute"]
        assert plain["time_s"] == option["time_s"]
        for field in ("time_s", "time_h", "cost_usd", "tokens_per_s", "mfu"):
            assert option[field] == train[field], (option["instance"], field)
        deadline = params.get("deadline_h")
        if deadline is not None:
            assert option["time_h"] <= deadline, option["instance"]
            count = option["instance_count"]
            if count > option["memory_count"]:   # one fewer misses it (train's own mode)
                fewer = run("train", model=params["model"], tokens=params["tokens"],
                            seq_len=params["seq_len"], instance=option["instance"],
                            count=count - 1, **recipe)
                assert fewer["time_h"] > deadline, option["instance"]
        memory = run("train_memory", model=params["model"], seq_len=params["seq_len"],
                     instance=option["instance"], count=option["memory_count"],
                     **option["layout"])
        assert memory["fits"] is True


def test_qa_advise_train_deadline_uses_the_layouts_mode() -> None:
    result = run("advise_train", **QA_ADVISE)
    assert_options_are_one_setup(result, QA_ADVISE)
    trn1 = next(o for o in result["options"] if o["instance"] == "trn1.32xlarge")
    # the mode timed is train's at that count: train without a mode agrees
    plain = run("train", model="llama-3.1-8b", tokens=10**10, seq_len=4096,
                instance="trn1.32xlarge", count=trn1["instance_count"])
    assert plain["recompute"] == trn1["recompute"]
    assert plain["time_s"] == trn1["time_s"]


def test_advise_train_times_a_full_recompute_layout_with_full() -> None:
    params = {"model": "llama-3.1-70b", "tokens": 10**10, "seq_len": 32768,
              "budget_usd": 1e9, "family": "neuron", "max_count": 4, "recipe": "adam_8bit"}
    result = run("advise_train", **params)
    assert_options_are_one_setup(result, params)
    trn1 = next(o for o in result["options"] if o["instance"] == "trn1.32xlarge")
    assert trn1["layout"]["recompute"] == "full"
    selective = run("train", model="llama-3.1-70b", tokens=10**10, seq_len=32768,
                    instance="trn1.32xlarge", count=trn1["instance_count"],
                    recompute="selective", recipe="adam_8bit")
    assert selective["fits"] is False


def test_advise_train_memory_count_is_the_fewest_with_any_mode() -> None:
    """Review: one mode was tried over the whole count ladder before the next, so 405B at 8,192
    tokens on p5.48xlarge needed 128 instances (selective) where full recompute fits on 8. The
    memory count is now train's own check: train fits there, and at half of it with no mode."""
    result = run("advise_train", model="llama-3.1-405b", tokens=10**10, seq_len=8192,
                 deadline_h=100_000, family="gpu")
    options = {o["instance"]: o for o in result["options"]}
    assert "p5.48xlarge" in options
    for instance, option in options.items():
        count = option["memory_count"]
        at = run("train", model="llama-3.1-405b", tokens=10**10, seq_len=8192,
                 instance=instance, count=count)
        assert at["fits"] is True, instance
        assert {k: at["training_layout"][k] for k in option["layout"]} == option["layout"]
        memory = run("train_memory", model="llama-3.1-405b", seq_len=8192, instance=instance,
                     count=count, **option["layout"])
        assert memory["fits"] is True, instance
        if count > 1:
            for mode in MODES:
                half = run("train", model="llama-3.1-405b", tokens=10**10, seq_len=8192,
                           instance=instance, count=count // 2, recompute=mode)
                assert half["fits"] is False, (instance, mode)
