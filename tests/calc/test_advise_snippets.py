"""Serving snippets for advisor options (issue 11 item 3, engine part): the command carries the
option's TP, batch, lengths and dtype, uses the newest framework version that supports the
configuration (data/framework_support.toml, read here independently), and uses only flags the
cited documentation shows."""

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from calc_helpers import error, run

from calc import data
from calc.snippets import hf_repo

ROOT = Path(__file__).resolve().parents[2]


def support() -> list[dict[str, Any]]:
    with (ROOT / "data/framework_support.toml").open("rb") as handle:
        records: list[dict[str, Any]] = tomllib.load(handle)["framework"]
    return records


def expected_version(kind: str, family: str, model: str, dtype: str) -> dict[str, Any] | None:
    for record in support():
        if record["kind"] != kind:
            continue
        if family in record["instance_families"] and dtype in record["dtypes"] and (
                "models" not in record or model in record["models"]):
            return record
    return None


def test_framework_support_data_is_sourced() -> None:
    known = {str(s["id"]) for s in data.records("sources")}
    families = {str(i["family"]) for i in data.records("instances")}
    presets = set(data.model_ids())
    for record in support():
        assert record["sources"] and set(record["sources"]) <= known, record["id"]
        assert set(record["instance_families"]) <= families, record["id"]
        assert ("models" in record) != ("models_missing" in record), record["id"]
        assert set(record.get("models", [])) <= presets, record["id"]
        if record["kind"] == "neuron":
            assert record["neuron_sdk"]


@pytest.mark.parametrize(("model", "dtype"), [("llama-3.1-70b", "bf16"),
                                              ("llama-3.1-8b", "fp8"),
                                              ("mixtral-8x7b", "bf16")])
def test_snippet_for_every_option(model: str, dtype: str) -> None:
    advised = run("advise", model=model, input_len=1024, output_len=256, dtype=dtype)
    assert advised["options"]
    for option in advised["options"]:
        instance = data.instance(option["instance"])
        result = run("snippet", model=model, instance=option["instance"],
                     tp=option["tp_degree"], batch=option["batch"], input_len=1024,
                     output_len=256, dtype=dtype)
        wanted = expected_version(instance.kind, instance.family, model, dtype)
        if wanted is None:
            assert result["text"] is None and result["supported"] is False
            assert result["reasons"]
            continue
        assert result["supported"] is True
        assert result["framework"] == wanted["id"]
        assert result["neuron_sdk"] == wanted.get("neuron_sdk")
        text = result["text"]
        assert f"--tensor-parallel-size {option['tp_degree']} " in text
        assert f"--max-num-seqs {option['batch']} " in text
        assert "--max-model-len 1280 " in text
        repo = hf_repo(model)
        assert repo is not None and f"--model {repo} " in text
        notes = " ".join(str(data.record("sources", s)["note"]) for s in result["sources"])
        for flag in set(re.findall(r"--[a-z][a-z-]*", text)) - {"--port", "--model"}:
            assert flag in notes, (flag, result["sources"])
        for key in ("enable_bucketing", "context_encoding_buckets", "token_generation_buckets",
                    "VLLM_NEURON_FRAMEWORK", "neuronx-distributed-inference"):
            if key in text:
                assert key in notes


def test_unsupported_configurations_say_why() -> None:
    # (a model that fits one Inferentia core: no decoder preset does, and a setup that does
    # not fit is refused before the framework lists are read; an encoder gets no command:
    # a custom model, whose fit is not checked)
    inf1 = run("snippet", instance="inf1.24xlarge", tp=1, batch=1,
               input_len=128, output_len=128)
    assert inf1["text"] is None
    assert "framework_instance_unsupported" in {r["key"] for r in inf1["reasons"]}
    mixtral = run("snippet", model="mixtral-8x7b", instance="trn1.32xlarge", tp=32, batch=1,
                  input_len=128, output_len=128)
    assert {r["key"] for r in mixtral["reasons"]} == {"framework_model_unsupported"}
    fp8 = run("snippet", model="llama-3.1-8b", instance="inf2.48xlarge", tp=8, batch=1,
              input_len=128, output_len=128, dtype="fp8")
    assert {r["key"] for r in fp8["reasons"]} == {"framework_dtype_unsupported"}


def test_custom_model_and_gpu_notes() -> None:
    custom = run("snippet", instance="p4d.24xlarge", tp=8, batch=16, input_len=128,
                 output_len=128)
    assert custom["supported"] and "<your-model-path-or-hf-repo>" in custom["text"]
    keys = {r["key"] for r in custom["reasons"]}
    assert {"custom_model_path", "framework_model_not_checked"} <= keys
    assert "model" not in custom["checks"]
    assert hf_repo("llama-3.1-8b") == "meta-llama/Llama-3.1-8B"
    assert error("snippet", model="nope", instance="p4d.24xlarge", tp=8, input_len=1,
                 output_len=1)["key"] == "unknown_model"


def test_snippet_labels() -> None:
    with (ROOT / "data/i18n/en/steps.toml").open("rb") as handle:
        steps = tomllib.load(handle)
    labels = set(steps["step"]) | set(steps["field"])
    results = [
        run("snippet", model="mixtral-8x7b", instance="trn1.32xlarge", tp=32, batch=1,
            input_len=128, output_len=128, kv_dtype="fp8"),
        run("snippet", instance="p4d.24xlarge", tp=8, batch=1, input_len=128, output_len=128,
            kv_dtype="int8"),
        run("snippet", instance="inf1.24xlarge", tp=1, batch=1,
            input_len=128, output_len=128),
    ]
    for result in results:
        for name in set(result) - {"framework", "derivation"}:
            assert name in labels, name
        for reason in result["reasons"]:
            assert reason["key"] in steps["reason"], reason["key"]


def test_a_snippet_is_refused_for_a_setup_that_would_not_start() -> None:
    # (hardening) the snippet api wrote "supported" commands for TP 3 on inf2.48xlarge, TP 64 on
    # a 2-core instance, 405B on inf2.xlarge and --dtype bfloat16 on a T4
    base = {"input_len": 128, "output_len": 128}
    failure = error("snippet", model="llama-3.1-8b", instance="inf2.48xlarge", tp=3, **base)
    assert (failure["field"], failure["key"]) == ("tp", "tp_not_allowed")
    failure = error("snippet", model="llama-3.1-8b", instance="inf2.xlarge", tp=64, **base)
    assert (failure["field"], failure["key"]) == ("tp", "tp_not_allowed")
    failure = error("snippet", model="llama-3.1-405b", instance="inf2.xlarge", tp=1, **base)
    assert (failure["field"], failure["key"]) == ("tp", "snippet_does_not_fit")
    failure = error("snippet", model="llama-3.2-1b", instance="g4dn.xlarge", tp=1, dtype="bf16",
                    **base)
    assert (failure["field"], failure["key"]) == ("dtype", "dtype_not_supported")
    # absent a dtype, the instance's own (T4: fp16), not a fixed bf16
    made = run("snippet", model="llama-3.2-1b", instance="g4dn.xlarge", tp=1, **base)
    assert "--dtype float16" in str(made["text"])
    # a KV dtype is checked against the hardware with or without a model
    failure = error("snippet", instance="g4dn.xlarge", tp=1, kv_dtype="bf16", **base)
    assert (failure["field"], failure["key"]) == ("kv_dtype", "dtype_not_supported")


# ---- QA pass D, finding 7: commands that would not start are not offered ---------------------

SNIPPET = dict(model="llama-3.1-8b", instance="inf2.24xlarge", batch=4, input_len=128,
               output_len=128)


def test_tp_that_does_not_split_the_heads_is_refused() -> None:
    failure = error("snippet", **{**SNIPPET, "tp": 12})   # 32 heads: vLLM refuses TP 12
    assert (failure["field"], failure["key"]) == ("tp", "heads_not_divisible")


def test_an_encoder_gets_no_vllm_serve_command() -> None:
    failure = error("snippet", model="bert-base", instance="inf2.xlarge", tp=1, batch=1,
                    input_len=128, output_len=1)
    assert (failure["field"], failure["key"]) == ("model", "not_a_decoder")


def test_beyond_the_models_maximum_positions_there_is_no_command() -> None:
    result = run("snippet", model="llama-2-7b", instance="inf2.48xlarge", tp=8, batch=1,
                 input_len=8000, output_len=1000)
    assert result["supported"] is False and result["text"] is None
    assert result["reasons"] == [{"key": "snippet_beyond_positions", "params": {"max": 4096}}]


@pytest.mark.parametrize(("instance", "framework", "family"), [
    ("inf2.24xlarge", "vllm-neuron", "vllm-nxdi"), ("p5.48xlarge", "vllm-gpu", "vllm")])
def test_the_framework_is_an_engine_framework_id(instance: str, framework: str,
                                                 family: str) -> None:
    """Its `framework` was matched against framework_support.toml's names, so every engine id
    (vllm-neuron, vllm-gpu) came back "no serving framework in our data"."""
    result = run("snippet", **{**SNIPPET, "instance": instance, "tp": 4, "framework": framework})
    assert result["supported"] is True and "vllm serve" in result["text"]
    chosen = next(r for r in support() if r["id"] == result["framework"])
    assert chosen["framework"] == family


def test_a_framework_the_commands_do_not_start_says_so() -> None:
    result = run("snippet", **{**SNIPPET, "tp": 4, "framework": "nxd-inference"})
    assert result["supported"] is False and result["text"] is None
    assert [r["key"] for r in result["reasons"]] == ["snippet_framework_missing"]
    for framework, key in (("tensorrt-llm", "framework_unsupported"),
                           ("nxd-training", "unknown_choice")):
        failure = error("snippet", **{**SNIPPET, "tp": 4, "framework": framework})
        assert (failure["field"], failure["key"]) == ("framework", key)
