"""QA (Stop 46): perf's automatic TP chose a degree that pads the heads (TP 24 for Llama 3.1
8B's 32 heads on inf2.48xlarge) that the advisor rejects and the snippet refuses; and the math
said "given" for a degree the objective chose, showed replicas for a setup that does not fit,
and called the least-memory degree of a setup that fits nowhere "recommended TP"."""

from typing import Any

import pytest
from calc_helpers import run

from calc import memory


def steps(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {step["key"]: step for step in result["derivation"]}


@pytest.mark.parametrize("objective", ["latency", "cost"])
def test_automatic_tp_divides_the_heads_when_such_a_degree_fits(objective: str) -> None:
    result = run("perf", model="llama-3.1-8b", instance="inf2.48xlarge", input_len=128,
                 output_len=128, objective=objective)
    assert 32 % result["tp_degree"] == 0, result["tp_degree"]
    assert all(32 % t == 0 for t in result["tp_reason"]["params"]["candidates"])
    snippet = run("snippet", model="llama-3.1-8b", instance="inf2.48xlarge",
                  tp=result["tp_degree"], input_len=128, output_len=128)
    assert snippet   # the snippet takes the degree perf chose
    row = run("compare", model="llama-3.1-8b", instances="inf2.48xlarge",
              objective=objective, input_len=128, output_len=128)["rows"][0]
    assert row["tp_degree"] == result["tp_degree"]


def test_a_padded_degree_is_still_given_when_asked() -> None:
    result = run("perf", model="llama-3.1-8b", instance="inf2.48xlarge", input_len=128,
                 output_len=128, tp=24)
    assert result["tp_degree"] == 24 and result["fits"] is True
    assert steps(result)["tp_degree"]["formula"] == "given"


def test_chosen_degree_is_labelled_by_its_objective() -> None:
    latency = run("perf", model="llama-3.1-8b", instance="trn1.32xlarge", input_len=128,
                  output_len=128)
    assert latency["tp_reason"]["key"] == "tp_fastest"
    assert "latency objective" in steps(latency)["tp_degree"]["formula"]
    cost = run("perf", model="llama-3.1-8b", instance="trn1.32xlarge", input_len=128,
               output_len=128, objective="cost")
    assert "cost objective" in steps(cost)["tp_degree"]["formula"]


def test_unfit_perf_math_has_no_replicas_and_names_the_degree() -> None:
    result = run("perf", model="llama-3.1-70b", instance="g5.xlarge", input_len=512,
                 output_len=128, batch=8)
    assert result["fits"] is False and result["replicas"] is None
    shown = steps(result)
    assert "replicas" not in shown
    assert shown["tp_degree"]["formula"] == memory.TP_NONE_FITS


def test_unfit_memory_does_not_call_its_degree_recommended() -> None:
    result = run("memory", model="llama-3.1-70b", instance="g5.xlarge", seq_len=640, batch=8)
    assert result["fits"] is False and result["recommended_tp_degree"] is None
    assert steps(result)["tp_degree"]["formula"] == memory.TP_NONE_FITS
    fits = run("memory", model="llama-3.1-8b", instance="trn1.32xlarge", seq_len=640)
    assert steps(fits)["tp_degree"]["formula"] == "recommended TP"


def test_unfit_perf_math_shows_the_degree_the_answer_names() -> None:
    """The memory math of a setup that fits nowhere is worked at the degree the answer and its
    reason name (the least memory per core over several allowed degrees)."""
    result = run("perf", model="llama-3.1-405b", instance="inf2.48xlarge", input_len=512,
                 output_len=128, dtype="bf16")
    assert result["fits"] is False
    assert len(result["fit_reason"]["params"]["tp_degrees_allowed"]) > 1
    shown = steps(result)["tp_degree"]
    assert shown["value"] == result["tp_degree"] == result["fit_reason"]["params"]["tp"]
    assert shown["formula"] == memory.TP_NONE_FITS
