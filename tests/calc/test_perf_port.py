"""The serving inputs (issue 15) on the one-parse api and through the trust gate (issue 9):
declared once in calc.inputs, passed by perf / train / compare and calc.fit_gate_api."""

import pytest
from calc_helpers import error, run

from calc import cli, inputs, serving
from calc.errors import CalcError


def test_serving_params_are_declared_once() -> None:
    for name in ("framework", "compiled_batch", "compiled_seq_len", "recompute"):
        assert name in inputs.PARAMS
    for kind in ("perf", "compare"):
        for name in ("framework", "compiled_batch", "compiled_seq_len"):
            assert name in inputs.KIND_PARAMS[kind]
    assert {"framework", "recompute"} <= set(inputs.KIND_PARAMS["train"])


def test_perf_passes_the_framework_through_the_gate() -> None:
    vllm = run("perf", model="llama-3.1-8b", instance="inf2.48xlarge", batch=8, input_len=512,
               output_len=128, framework="vllm-neuron")
    nxd = run("perf", model="llama-3.1-8b", instance="inf2.48xlarge", batch=8, input_len=512,
              output_len=128, framework="nxd-inference")
    assert vllm["framework"] == "vllm-neuron" and nxd["framework"] == "nxd-inference"
    assert vllm["tpot_s"] != nxd["tpot_s"]
    # the TP objective compared its candidates with the same serving model
    assert vllm["tp_reason"]["params"]["e2e_s"] == vllm["e2e_s"]
    assert error("perf", model="llama-3.1-8b", instance="p5.48xlarge", input_len=8,
                 output_len=8, framework="nxd-inference")["key"] == "framework_unsupported"


def test_serving_on_inferentia1_names_the_serving_phase() -> None:
    # no serving framework in the data runs on Inferentia 1: the message is about serving, not
    # training (it said "no training framework" before)
    for framework in ("vllm-neuron", "nxd-inference"):
        failure = error("perf", model="llama-3.1-8b", instance="inf1.xlarge", input_len=8,
                        output_len=8, framework=framework)
        assert (failure["field"], failure["key"]) == ("framework", "no_inference_framework")


def test_compiled_batch_is_fitted_and_padded() -> None:
    small = run("perf", model="llama-3.1-8b", instance="inf2.xlarge", batch=1, input_len=128,
                output_len=128, framework="nxd-inference")
    padded = run("perf", model="llama-3.1-8b", instance="inf2.xlarge", batch=1, input_len=128,
                 output_len=128, framework="nxd-inference", compiled_batch=4)
    assert padded["padded_batch"] == 4 and padded["tpot_s"] >= small["tpot_s"]
    assert error("perf", model="llama-3.1-8b", instance="inf2.xlarge", batch=8, input_len=128,
                 output_len=128, compiled_batch=4)["key"] == "compiled_too_small"
    # a compiled batch too large for the memory: the gate says so (speed, band, basis null)
    huge = run("perf", model="llama-3.1-8b", instance="inf2.xlarge", batch=1, input_len=128,
               output_len=128, tp=2, compiled_batch=4096)
    assert huge["fits"] is False
    assert huge["error_band"] is None and huge["basis"] is None and huge["tpot_s"] is None
    assert huge["framework"] is not None


def test_a_compiled_length_shorter_than_the_request_is_refused() -> None:
    # prompt 5,000 + output 100 cannot run on a server compiled for 4,096 tokens (TGI would cut
    # the prompt): one clear error naming the field and the least length, not a padded estimate
    problem = error("perf", model="llama-3.1-8b", instance="inf2.48xlarge", batch=1,
                    input_len=5000, output_len=100, framework="tgi-neuron", compiled_seq_len=4096)
    assert (problem["field"], problem["key"]) == ("compiled_seq_len", "compiled_too_small")
    assert problem["params"]["min"] == 5100 and problem["params"]["value"] == 4096
    # the speed model itself refuses it too (callers that skip the memory gate)
    with pytest.raises(CalcError) as raised:
        serving.check_compiled_shapes(1, 5000, 100, None, 4096)
    assert raised.value.field == "compiled_seq_len"
    exact = run("perf", model="llama-3.1-8b", instance="inf2.48xlarge", batch=1,
                input_len=4000, output_len=96, framework="tgi-neuron", compiled_seq_len=4096)
    assert exact["padded_input_len"] == 4096


def test_compare_rows_keep_framework_band_and_basis() -> None:
    answer = run("compare", model="llama-3.1-70b", instances="inf2.xlarge,inf2.48xlarge",
                 input_len=128, output_len=128)
    rows = {row["instance"]: row for row in answer["rows"]}
    fits, small = rows["inf2.48xlarge"], rows["inf2.xlarge"]
    assert fits["fits"] is True and fits["framework"] and fits["basis"] in ("measured",
                                                                            "modelled")
    assert fits["error_band"]["tpot_s"] is not None
    assert small["fits"] is False
    assert small["error_band"] is None and small["basis"] is None


def test_train_takes_framework_and_recompute() -> None:
    none = run("train", model="llama-3.1-8b", instance="trn1.32xlarge", count=4,
               tokens=10**9, seq_len=4096, recompute="none")
    full = run("train", model="llama-3.1-8b", instance="trn1.32xlarge", count=4,
               tokens=10**9, seq_len=4096, recompute="full")
    assert none["recompute"] == "none" and full["recompute"] == "full"
    assert full["time_s"] > none["time_s"]


def test_cli_lists_frameworks_and_documents_the_options() -> None:
    request, _ = cli.request_from_args(["list", "frameworks"])
    assert request["params"]["what"] == "frameworks"
    for name in ("framework", "compiled-batch", "compiled-seq-len", "recompute"):
        assert cli.OPTIONS[name].default
    request, _ = cli.request_from_args(["perf", "--model", "llama-3.1-8b", "--instance",
                                        "inf2.xlarge", "--input-len", "8", "--output-len", "8",
                                        "--framework", "vllm-neuron", "--compiled-batch", "4",
                                        "--compiled-seq-len", "1024"])
    assert request["params"]["framework"] == "vllm-neuron"
    assert request["params"]["compiled_batch"] == "4"


def test_compare_and_advise_refuse_once_what_is_wrong_on_every_instance() -> None:
    # (hardening) compare used to answer with every row "no estimate" and fits false, advise
    # with "fits on no priced instance", for a training framework or a too-small compiled batch
    two = "inf2.xlarge,g5.xlarge"
    failure = error("compare", instances=two, model="llama-3.2-1b", framework="nxd-training")
    assert (failure["field"], failure["key"]) == ("framework", "unknown_choice")
    failure = error("compare", instances=two, model="llama-3.2-1b", batch=8, compiled_batch=4)
    assert (failure["field"], failure["key"]) == ("compiled_batch", "compiled_too_small")
    for framework in ("nxd-training", "megatron-gpu"):
        failure = error("advise", model="llama-3.2-1b", input_len=128, output_len=128,
                        request_rate=1, framework=framework)
        assert (failure["field"], failure["key"]) == ("framework", "unknown_choice")
    # a framework that runs on some of the instances stays a per-row answer
    rows = run("compare", instances=two, model="llama-3.2-1b", framework="vllm-gpu")["rows"]
    assert [row["perf_error"] for row in rows] == ["framework_unsupported", None]
