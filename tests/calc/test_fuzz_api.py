"""Fuzz calc.api.run for every kind: the answer is ok or a typed input error (never
internal_error), no result holds inf/NaN, and the response is strict JSON (allow_nan=False)."""

from __future__ import annotations

import json
import math
import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calc import api, data

EXAMPLES = int(os.environ.get("NFG_FUZZ_EXAMPLES", "150"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

INSTANCES = data.instance_ids()
MODELS = data.model_ids()

# numbers at and beyond every limit: huge integers (float overflow), tiny and huge floats,
# numeric strings, non-finite spellings, junk
edge_numbers = st.one_of(
    st.integers(-3, 3),
    st.integers(1, 10**6),
    st.integers(10**15, 10**20),
    st.integers(min_value=10**300, max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=5e-324, max_value=1e-6),
    st.floats(min_value=1e6, max_value=1e308),
    st.sampled_from(["1e999", "-1e999", "nan", "inf", "1" * 400, "0x10", "1,5", "10,000", "",
                     " 7 ", "1e-320", "9" * 5000, "true", None, True, [], {}]),
)
small_ints = st.one_of(st.integers(1, 512), st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128]))


def _values(name: str) -> st.SearchStrategy[Any]:
    if name in ("instance",):
        return st.one_of(st.sampled_from(INSTANCES), st.text(max_size=12))
    if name == "instances":
        return st.one_of(st.lists(st.sampled_from(INSTANCES), max_size=6),
                         st.lists(st.text(max_size=8), max_size=3),
                         st.just(",".join(INSTANCES * 200)),
                         st.just(["inf2.xlarge"] * 5000),
                         st.text(max_size=30))
    if name == "model":
        return st.one_of(st.sampled_from(MODELS), st.text(max_size=12))
    if name in ("dtype", "kv_dtype"):
        return st.sampled_from(["bf16", "fp16", "fp8", "int8", "int4", "fp32", "tf32", "x", 3])
    if name == "region":
        return st.sampled_from([*data.regions(), "mars-1", ""])
    if name == "price_kind":
        return st.sampled_from(["on-demand", "ri-effective", "capacity-block", "spot"])
    if name == "what":
        return st.sampled_from(["models", "instances", "chips", "gpus"])
    if name in ("gated", "tied", "sp"):
        return st.sampled_from([True, False, "yes", "maybe", 1])
    if name == "architecture":
        return st.sampled_from(["decoder", "encoder", "rnn"])
    if name == "recompute":
        return st.sampled_from(["none", "selective", "full", "half"])
    if name == "recipe":
        return st.sampled_from(["eleutherai", "llm_analysis", "deepspeed", "adam_8bit", "sgd"])
    if name == "mfu":
        return st.one_of(st.floats(min_value=5e-324, max_value=1.0), edge_numbers)
    if name == "hours":
        return st.one_of(st.floats(min_value=5e-324, max_value=1e7), edge_numbers)
    return st.one_of(small_ints, edge_numbers)


PARAMS: dict[str, tuple[str, ...]] = {
    "memory": ("instance", "dtype", "kv_dtype", "batch", "seq_len", "tp"),
    "perf": ("instance", "dtype", "kv_dtype", "batch", "input_len", "output_len", "tp", "region",
             "price_kind"),
    "train": ("instance", "count", "tokens", "seq_len", "mfu", "dtype", "region", "price_kind"),
    "train_memory": ("instance", "count", "recipe", "zero", "recompute", "sp", "tp", "pp", "dp",
                     "batch", "seq_len"),
    "price": ("instance", "region", "hours", "price_kind"),
    "compare": ("instances", "region", "hours", "price_kind", "dtype", "kv_dtype", "batch",
                "input_len", "output_len"),
    "list": ("what",),
}
MODEL_KINDS = ("memory", "perf", "train", "train_memory", "compare")
ARCH = ("params", "active_params", "layers", "hidden", "heads", "kv_heads", "head_dim",
        "intermediate", "vocab", "gated", "tied", "experts", "active_experts", "architecture")


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from([*PARAMS, "bogus"]))
    names = list(PARAMS.get(kind, ("instance",)))
    if kind in MODEL_KINDS:
        names += ["model"] if draw(st.booleans()) else list(ARCH)
    chosen = draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names)))
    params: dict[str, Any] = {}
    # mostly-valid anchors so the fuzz reaches the formulas, not only the first check
    if "instance" in names and draw(st.booleans()):
        params["instance"] = draw(st.sampled_from(INSTANCES))
    if "model" in names and draw(st.booleans()):
        params["model"] = draw(st.sampled_from(MODELS))
    for name in chosen:
        params[name] = draw(_values(name))
    if draw(st.integers(0, 20)) == 0:
        params["surprise"] = 1
    return {"schema_version": 1, "kind": kind, "params": params}


def _finite(value: Any, path: str = "result") -> None:
    if isinstance(value, float):
        assert math.isfinite(value), f"{path} = {value}"
    elif isinstance(value, dict):
        for key, item in value.items():
            _finite(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _finite(item, f"{path}[{index}]")


def check(request: dict[str, Any]) -> dict[str, Any]:
    response = api.run(request)
    assert isinstance(response, dict)
    if response["ok"]:
        _finite(response["result"])
    else:
        error = response["error"]
        assert error["key"] != "internal_error", (request, error)
        assert isinstance(error["field"], str) and error["field"]
        assert isinstance(error["message"], str) and error["message"]
    json.dumps(response, allow_nan=False)  # raises ValueError on inf/NaN anywhere
    return response


@FUZZ
@given(request=requests())
def test_fuzzed_requests_are_ok_or_typed_errors_with_finite_json(request: dict[str, Any]) -> None:
    check(request)


# the findings of the fuzz run, pinned
def test_huge_integer_hours_is_a_typed_error() -> None:
    for kind in ("price", "compare"):
        params: dict[str, Any] = {"hours": 10**400}
        if kind == "price":
            params["instance"] = "inf2.xlarge"
        response = check({"schema_version": 1, "kind": kind, "params": params})
        assert not response["ok"] and response["error"]["field"] == "hours"


def test_vanishing_mfu_is_a_typed_error() -> None:
    response = check({"schema_version": 1, "kind": "train", "params": {
        "model": "llama-3.1-8b", "instance": "trn1.32xlarge", "tokens": 10**18,
        "seq_len": 4096, "mfu": 5e-324}})
    assert not response["ok"] and response["error"]["field"] == "mfu"


def test_compare_list_is_bounded() -> None:
    response = check({"schema_version": 1, "kind": "compare",
                      "params": {"instances": ["inf2.xlarge"] * 5000}})
    assert not response["ok"] and response["error"]["field"] == "instances"


def test_cli_json_is_strict(capsys: Any) -> None:
    from calc.cli import main

    code = main(["train", "--model", "llama-3.1-8b", "--instance", "trn1.32xlarge",
                 "--tokens", "1000000000000000000", "--seq-len", "4096", "--mfu", "1e-300",
                 "--json"])
    out = capsys.readouterr().out
    assert code == 2 and "Infinity" not in out and "NaN" not in out
