"""The advisor (issue 11): the API/CLI contract, and every option equals calc perf and calc memory
for the same configuration."""

import json
import math
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from calc_helpers import error, run

from calc import data, inputs
from calc.advise import largest_fitting_batch

ROOT = Path(__file__).resolve().parents[2]
OPTION_FIELDS = {
    "instance", "tp_degree", "batch", "replicas", "instance_count", "ttft_s", "tpot_s",
    "output_tokens_per_s", "usd_per_hour", "usd_per_million_output_tokens", "price_kind",
    "error_band", "basis",
}
# fields an option copies from the perf result of the same configuration
FROM_PERF = (
    "instance", "tp_degree", "batch", "replicas", "ttft_s", "tpot_s", "e2e_s",
    "output_tokens_per_s", "output_tokens_per_s_per_replica", "usd_per_hour",
    "usd_per_million_output_tokens", "decode_bound",
)
REQUESTS: list[dict[str, Any]] = [
    {"model": "llama-3.1-8b", "input_len": 1024, "output_len": 256},
    {"model": "llama-3.1-70b", "input_len": 1024, "output_len": 256, "ttft_max": 1.0,
     "tpot_max": 0.05, "request_rate": 2},
    {"model": "mixtral-8x7b", "input_len": 512, "output_len": 128, "family": "neuron",
     "dtype": "fp8"},
    {"layers": 24, "hidden": 2048, "heads": 16, "kv_heads": 4, "intermediate": 5632,
     "vocab": 32000, "gated": True, "input_len": 2048, "output_len": 512, "tpot_max": 0.02,
     "tokens_per_day": 5e8},
]
PERF_KEYS = ("dtype", "kv_dtype", "input_len", "output_len", "region", "price_kind", "framework")
MODEL_KEYS = ("model", "layers", "hidden", "heads", "kv_heads", "intermediate", "vocab", "gated",
              "params", "head_dim", "tied", "experts", "active_experts", "active_params")


def perf_params(request: dict[str, Any], option: dict[str, Any]) -> dict[str, Any]:
    params = {k: v for k, v in request.items() if k in PERF_KEYS or k in MODEL_KEYS}
    params.update(instance=option["instance"], tp=option["tp_degree"], batch=option["batch"])
    return params


@pytest.fixture(scope="module", params=range(len(REQUESTS)))
def advised(request: pytest.FixtureRequest) -> tuple[dict[str, Any], dict[str, Any]]:
    params = REQUESTS[request.param]
    return params, run("advise", **params)


def test_options_have_the_contract_fields(advised: tuple[dict[str, Any], dict[str, Any]]) -> None:
    _, result = advised
    assert result["options"], result["message"]
    for option in result["options"]:
        assert OPTION_FIELDS <= set(option)
    for entry in result["rejected"]:
        assert {"instance", "reason"} <= set(entry)
        assert isinstance(entry["reason"]["key"], str) and isinstance(entry["reason"]["params"],
                                                                       dict)


def test_every_option_equals_perf_and_memory(
    advised: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    request, result = advised
    for option in result["options"]:
        params = perf_params(request, option)
        perf = run("perf", **params)
        assert run("perf", **option["perf_params"]) == perf  # the speed calculator's link
        for field in FROM_PERF:
            assert option[field] == perf[field], (option["instance"], field)
        assert option["error_band"] == perf.get("error_band")
        assert option["basis"] == perf.get("basis")
        assert perf["fits"] is True
        memory_params = {k: v for k, v in params.items()
                         if k not in ("input_len", "output_len", "region", "price_kind",
                                      "framework")}
        memory = run("memory", **memory_params,
                     seq_len=request["input_len"] + request["output_len"])
        assert memory["fits"] is True
        assert memory["tp_degree"] == option["tp_degree"]
        assert memory["replicas"] == option["replicas"]
        assert memory["max_batch"] >= option["batch"]


def test_options_meet_the_targets_and_the_rate(
    advised: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    request, result = advised
    needed = result["output_tokens_per_s_needed"]
    for option in result["options"]:
        if "ttft_max" in request:
            assert option["ttft_s"] <= request["ttft_max"]
        if "tpot_max" in request:
            assert option["tpot_s"] <= request["tpot_max"]
        if needed is None:
            assert option["instance_count"] == 1
        else:
            count = option["instance_count"]
            assert count * option["output_tokens_per_s"] >= needed
            assert count == 1 or (count - 1) * option["output_tokens_per_s"] < needed
            assert option["fleet_usd_per_hour"] == pytest.approx(count * option["usd_per_hour"])


def test_ranking(advised: tuple[dict[str, Any], dict[str, Any]]) -> None:
    _, result = advised
    key = result["ranked_by"]
    values = [option[key] for option in result["options"]]
    assert values == sorted(values)


def test_every_instance_is_an_option_or_rejected(
    advised: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    request, result = advised
    family = request.get("family", "all")
    wanted = {i for i in data.instance_ids()
              if family == "all" or data.instance(i).kind == family}
    seen = {o["instance"] for o in result["options"]} | {r["instance"] for r in result["rejected"]}
    assert seen == wanted
    for option in result["options"]:
        assert family == "all" or option["instance_kind"] == family


def test_batch_is_the_largest_that_meets_the_targets(
    advised: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    """One more request in the batch misses a target or does not fit (the search's claim;
    with a rate the batch is then lowered, see test_rate_lowers_the_batch_not_the_count)."""
    request, result = advised
    if result["requests_per_s"] is not None:
        return
    for option in result["options"][:6]:
        params = perf_params(request, option)
        bigger = option["batch"] + 1
        if bigger > result["max_batch"]:
            continue
        memory = run("memory", **{k: v for k, v in params.items()
                                  if k not in ("input_len", "output_len", "region",
                                               "price_kind", "framework")},
                     seq_len=request["input_len"] + request["output_len"])
        if bigger > memory["max_batch"]:
            continue  # the search stops at the largest batch that fits
        perf = run("perf", **{**params, "batch": bigger})
        too_slow = ("ttft_max" in request and perf["ttft_s"] > request["ttft_max"]) or (
            "tpot_max" in request and perf["tpot_s"] > request["tpot_max"])
        assert too_slow or not perf["fits"], (option["instance"], option["tp_degree"])


def test_rejected_tp_degrees_do_not_fit_or_miss_targets() -> None:
    result = run("advise", model="llama-3.1-70b", input_len=1024, output_len=256, tpot_max=0.05)
    reasons = {r["reason"]["key"] for r in result["rejected"]}
    assert "does_not_fit" in reasons
    for entry in result["rejected"]:
        if entry["reason"]["key"] == "misses_tpot":
            perf = run("perf", model="llama-3.1-70b", input_len=1024, output_len=256,
                       instance=entry["instance"], tp=entry["tp_degree"], batch=1)
            assert perf["tpot_s"] > 0.05
            assert perf["tpot_s"] == entry["reason"]["params"]["tpot_s"]
        if entry["reason"]["key"] == "does_not_fit" and entry["tp_degree"] is None:
            inst = data.instance(entry["instance"])
            for tp in (d for d in inst.tp_degrees if 64 % d == 0):  # 64 heads: unpadded TPs
                memory = run("memory", model="llama-3.1-70b", instance=entry["instance"],
                             seq_len=1280, tp=tp)
                assert memory["fits"] is False


def test_impossible_targets_give_no_options_and_the_best_reachable() -> None:
    result = run("advise", model="llama-3.1-70b", input_len=1024, output_len=256,
                 ttft_max=1e-4, tpot_max=1e-4)
    assert result["options"] == []
    message = result["message"]
    assert message["key"] == "targets_unreachable"
    best_ttft = message["params"]["best_ttft_s"]
    best_tpot = message["params"]["best_tpot_s"]
    assert best_ttft > 1e-4 and best_tpot > 1e-4
    reached = [r["reason"]["params"] for r in result["rejected"]
               if r["reason"]["key"] == "misses_targets"]
    assert min(p["ttft_s"] for p in reached) == best_ttft
    assert min(p["tpot_s"] for p in reached) == best_tpot


def test_nothing_fits_message() -> None:
    result = run("advise", model="llama-3.1-405b", input_len=1024, output_len=256,
                 family="neuron", region="us-east-1", dtype="fp32")
    if result["options"]:
        pytest.skip("some Neuron instance holds 405B in fp32 with the current data")
    assert result["message"]["key"] == "nothing_fits"


def test_tokens_per_day_is_a_rate() -> None:
    by_rate = run("advise", model="llama-3.1-8b", input_len=512, output_len=200, request_rate=3)
    by_day = run("advise", model="llama-3.1-8b", input_len=512, output_len=200,
                 tokens_per_day=3 * 200 * 86400)
    assert by_day["requests_per_s"] == pytest.approx(3)
    assert [(o["instance"], o["tp_degree"], o["instance_count"]) for o in by_day["options"]] == [
        (o["instance"], o["tp_degree"], o["instance_count"]) for o in by_rate["options"]]


def test_input_errors() -> None:
    assert error("advise", model="llama-3.1-8b", input_len=1, output_len=1, request_rate=1,
                 tokens_per_day=1)["key"] == "rate_conflict"
    assert error("advise", model="llama-3.1-8b", input_len=1)["key"] == "missing_field"
    assert error("advise", model="llama-3.1-8b", input_len=1, output_len=1,
                 family="tpu")["key"] == "unknown_choice"
    assert error("advise", model="bert-base", input_len=1, output_len=1)["key"] == "not_a_decoder"
    assert error("advise", model="llama-3.1-8b", input_len=1, output_len=1,
                 nonsense=1)["key"] == "unknown_field"
    assert error("advise", model="llama-3.1-8b", input_len=1, output_len=1,
                 ttft_max=-1)["key"] == "must_be_positive_number"
    assert error("advise", model="llama-3.1-8b", input_len=1, output_len=1,
                 region="mars-1")["key"] == "unknown_region"
    assert error("advise", model="llama-3.1-8b", input_len=1, output_len=1,
                 max_batch=10**9)["key"] == "out_of_range"
    assert error("advise_train", model="llama-3.1-8b", tokens=10**9, seq_len=128,
                 deadline_h=1, max_count=10**9)["key"] == "out_of_range"
    assert error("advise", model="llama-3.1-8b", input_len=1, output_len=1,
                 pad_heads="maybe")["key"] == "unknown_choice"


def test_framework_is_passed_to_perf() -> None:
    """perf decides what a framework means: the advisor forwards it; a perf that does not take
    it makes the request fail with perf's own error (never a silently different number)."""
    response = __import__("calc.api", fromlist=["run"]).run(
        {"kind": "advise", "params": {"model": "llama-3.1-8b", "input_len": 128,
                                      "output_len": 128, "framework": "vllm"}})
    perf = __import__("calc.api", fromlist=["run"]).run(
        {"kind": "perf", "params": {"model": "llama-3.1-8b", "input_len": 128,
                                    "output_len": 128, "framework": "vllm",
                                    "instance": "inf2.48xlarge"}})
    if perf["ok"]:
        assert response["ok"]
        assert response["result"]["framework"] == "vllm"
    else:
        assert not response["ok"]
        assert response["error"]["key"] == perf["error"]["key"]


def test_largest_fitting_batch() -> None:
    def bytes_at(batch: int) -> int:
        return 1000 + 7 * batch + (batch // 3)

    for capacity in range(990, 1400, 13):
        expected = max([b for b in range(1, 65) if bytes_at(b) <= capacity], default=0)
        assert largest_fitting_batch(bytes_at, capacity, 64) == expected


# ---------------------------------------------------------------- training mode


def test_train_options_equal_api_train_and_meet_the_deadline() -> None:
    params = {"model": "llama-3.1-8b", "tokens": 10**11, "seq_len": 4096, "deadline_h": 240}
    result = run("advise_train", **params)
    assert result["options"]
    costs = [o["cost_usd"] for o in result["options"]]
    assert costs == sorted(costs)
    for option in result["options"]:
        train = run("train", model="llama-3.1-8b", tokens=10**11, seq_len=4096,
                    instance=option["instance"], count=option["instance_count"])
        for field in ("time_s", "time_h", "cost_usd", "usd_per_hour", "tokens_per_s", "mfu"):
            assert option[field] == train[field], (option["instance"], field)
        assert option["time_h"] <= 240
        assert option["error_band"] == train.get("error_band")
        count = option["instance_count"]
        if count > option["memory_count"]:  # one fewer instance would miss the deadline
            fewer = run("train", model="llama-3.1-8b", tokens=10**11, seq_len=4096,
                        instance=option["instance"], count=count - 1)
            assert fewer["time_h"] > 240
        memory = run("train_memory", model="llama-3.1-8b", seq_len=4096,
                     instance=option["instance"], count=option["memory_count"],
                     **option["layout"])
        assert memory["fits"] is True


def test_train_budget_and_errors() -> None:
    base = {"model": "llama-3.1-8b", "tokens": 10**11, "seq_len": 4096}
    cheap = run("advise_train", **base, deadline_h=240)
    cheapest = cheap["options"][0]["cost_usd"]
    within = run("advise_train", **base, budget_usd=cheapest * 1.0001)
    assert within["options"] and all(o["cost_usd"] <= cheapest * 1.0001
                                     for o in within["options"])
    none = run("advise_train", **base, budget_usd=cheapest / 2)
    assert none["options"] == [] and none["message"]["key"] == "no_training_option"
    assert any(r["reason"]["key"] == "over_budget" for r in none["rejected"])
    assert error("advise_train", **base)["key"] == "goal_required"
    assert error("advise_train", **base, deadline_h=24, recipe="nope")["key"] == "unknown_choice"
    heavier = run("advise_train", **base, deadline_h=240, recipe="deepspeed")
    assert all(o["memory_count"] >= 1 for o in heavier["options"])


# ---------------------------------------------------------------- CLI and labels


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "calc", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=False)


def test_cli_advise_json_equals_api() -> None:
    done = cli("advise", "--model", "llama-3.1-8b", "--input-len", "512", "--output-len", "128",
               "--ttft-max", "2", "--json")
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    expected = run("advise", model="llama-3.1-8b", input_len=512, output_len=128, ttft_max=2)
    assert printed == json.loads(json.dumps(expected))
    text = cli("advise", "--model", "llama-3.1-8b", "--input-len", "512", "--output-len", "128")
    assert text.returncode == 0 and "options" in text.stdout


def test_cli_bad_input_is_one_line() -> None:
    done = cli("advise", "--model", "llama-3.1-8b", "--input-len", "512", "--output-len", "x")
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    train = cli("advise-train", "--model", "llama-3.1-8b", "--tokens", "1e9", "--seq-len", "2048",
                "--deadline-h", "24", "--json")
    assert train.returncode == 0, train.stderr
    assert json.loads(train.stdout)["options"]


def test_every_advise_key_has_a_label() -> None:
    with (ROOT / "data/i18n/en/steps.toml").open("rb") as handle:
        steps = tomllib.load(handle)
    labels = set(steps["step"]) | set(steps["field"])
    with (ROOT / "data/i18n/en/errors.toml").open("rb") as handle:
        errors = tomllib.load(handle)
    results = [
        run("advise", **REQUESTS[1]),
        run("advise", model="llama-3.1-70b", input_len=1024, output_len=256, ttft_max=1e-4),
        run("advise_train", model="llama-3.1-8b", tokens=10**11, seq_len=4096, deadline_h=1),
    ]
    # error_band, basis and framework are perf's fields (labelled by the perf work)
    owned_elsewhere = {"error_band", "basis", "framework", "derivation"}
    for result in results:
        for step in result["derivation"]:
            assert step["key"] in steps["step"], step["key"]
        rows = [result, *result["options"]]
        for row in rows:
            for field in set(row) - owned_elsewhere:
                assert field in labels, field
        reasons = [r["reason"]["key"] for r in result["rejected"]]
        if result["message"]:
            reasons.append(result["message"]["key"])
        for key in reasons:
            assert key in steps["reason"] or key in errors["error"], key
    for name in ("request_rate", "tokens_per_day", "ttft_max", "tpot_max", "family", "max_batch",
                 "deadline_h", "budget_usd", "max_count"):
        assert name in errors["input"]


def test_search_is_pruned_by_memory() -> None:
    """perf runs only for TP degrees that fit: O(log batch ladder) per fitting TP."""
    result = run("advise", model="llama-3.1-70b", input_len=1024, output_len=256)
    fitting = len(result["options"]) + sum(
        1 for r in result["rejected"] if r["tp_degree"] is not None)
    # no targets: one screening evaluation per (chip, TP) that fits, plus api perf per option
    assert result["perf_evaluations"] <= fitting + len(result["options"])
    targets = run("advise", model="llama-3.1-70b", input_len=1024, output_len=256,
                  tpot_max=0.03)
    fitting = len(targets["options"]) + sum(
        1 for r in targets["rejected"] if r["tp_degree"] is not None)
    assert targets["perf_evaluations"] <= fitting * (3 + 2 * math.ceil(math.log2(256)))


# ---------------------------------------------------------------- break-even vs per-token API


def api_prices() -> list[dict[str, Any]]:
    with (ROOT / "data/api_prices.toml").open("rb") as handle:
        records: list[dict[str, Any]] = tomllib.load(handle)["api_price"]
    return records


def test_api_price_records_are_sourced_or_say_why_not() -> None:
    known = {str(s["id"]) for s in data.records("sources")}
    presets = set(data.model_ids())
    for record in api_prices():
        assert record["model"] in presets
        assert record["sources"] and set(record["sources"]) <= known
        for field in ("usd_per_million_input_tokens", "usd_per_million_output_tokens"):
            assert (field in record) != (f"{field}_missing" in record), (record["model"], field)


def test_break_even_rate() -> None:
    record = next(r for r in api_prices() if r["model"] == "llama-3.1-70b")
    result = run("advise", model="llama-3.1-70b", input_len=1000, output_len=250,
                 request_rate=4)
    per_request = (1000 * record["usd_per_million_input_tokens"]
                   + 250 * record["usd_per_million_output_tokens"]) / 1e6
    assert result["api_usd_per_request"] == pytest.approx(per_request)
    assert result["api_usd_per_hour"] == pytest.approx(4 * 3600 * per_request)
    for option in result["options"]:
        rate = option["break_even_requests_per_s"]
        assert rate == pytest.approx(option["usd_per_hour"] / (3600 * per_request))
        # at the break-even rate one instance costs what the API costs
        assert 3600 * rate * per_request == pytest.approx(option["usd_per_hour"])
        assert option["break_even_reachable"] == (
            rate <= option["output_tokens_per_s"] / 250)
        assert option["cheaper_than_api"] == (
            option["fleet_usd_per_hour"] < result["api_usd_per_hour"])


def test_no_api_price_means_null_not_a_guess() -> None:
    custom = run("advise", layers=24, hidden=2048, heads=16, input_len=128, output_len=128)
    assert custom["api_price"] is None and custom["api_usd_per_request"] is None
    assert all(o["break_even_requests_per_s"] is None for o in custom["options"])
    big = run("advise", model="llama-3.1-405b", input_len=128, output_len=128)
    assert big["api_price"] is not None and big["api_price"]["missing_reason"]
    assert big["api_usd_per_request"] is None


def test_rate_lowers_the_batch_not_the_count() -> None:
    """With a rate, an option's batch is at most the largest that meets the targets, and it needs
    exactly the instance count that largest batch needs (same fleet price, lower latency)."""
    base = {"model": "llama-3.1-70b", "input_len": 1024, "output_len": 256, "tpot_max": 0.06}
    largest = {(o["instance"], o["tp_degree"]): o for o in run("advise", **base)["options"]}
    with_rate = run("advise", **base, request_rate=1.5)
    needed = with_rate["output_tokens_per_s_needed"]
    lowered = 0
    for option in with_rate["options"]:
        top = largest[(option["instance"], option["tp_degree"])]
        assert option["batch"] <= top["batch"]
        assert option["instance_count"] == math.ceil(needed / top["output_tokens_per_s"])
        lowered += option["batch"] < top["batch"]
    assert lowered > 0


def test_tp_degrees_that_do_not_divide_the_heads() -> None:
    """NxD Inference and vLLM need t | heads: other TPs are rejected unless pad_heads."""
    strict = run("advise", model="llama-3.1-8b", input_len=512, output_len=128)
    padded = run("advise", model="llama-3.1-8b", input_len=512, output_len=128, pad_heads=True)
    assert all(o["head_padding"] == 0 and 32 % o["tp_degree"] == 0 for o in strict["options"])
    refused = {(r["instance"], r["tp_degree"]) for r in strict["rejected"]
               if r["reason"]["key"] == "heads_not_divisible_pad"}
    assert ("inf2.48xlarge", 24) in refused and ("inf2.48xlarge", 12) in refused
    with_padding = {(o["instance"], o["tp_degree"]) for o in padded["options"]}
    assert ("inf2.48xlarge", 24) in with_padding
    option = next(o for o in padded["options"] if (o["instance"], o["tp_degree"]) == (
        "inf2.48xlarge", 24))
    assert option["head_padding"] == 16  # 32 heads padded to 48


def test_options_follow_api_perf_when_perf_perf_differs(monkeypatch: pytest.MonkeyPatch) -> None:
    """If api perf ever gives perf.perf other arguments than the screens do, the advisor notices
    (one comparison per call) and searches again through api perf: options stay api perf."""
    from calc import api

    original = api.perf
    request = {"model": "llama-3.1-8b", "input_len": 512, "output_len": 128, "tpot_max": 0.03}
    unpatched = run("advise", **request)

    def slower(params: Any) -> dict[str, Any]:
        result = original(params)
        return {**result, "tpot_s": result["tpot_s"] * 1.01}

    monkeypatch.setattr(api, "perf", slower)
    result = run("advise", **request)
    assert result["options"]
    assert unpatched["options"]
    # searched again through api perf: every option carries the patched (1 % slower) figures
    for option in result["options"]:
        expected = slower(inputs.parse("perf", option["perf_params"]))
        assert option["tpot_s"] == expected["tpot_s"] <= 0.03


def test_hf_config_model_is_forwarded_to_perf() -> None:
    """A model given as a Hugging Face config.json (issue 10) is searched like a preset: the
    options carry it in their perf params and equal calc perf for them."""
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 2048,
              "intermediate_size": 8192, "num_hidden_layers": 16, "num_attention_heads": 32,
              "num_key_value_heads": 8, "vocab_size": 128256, "tie_word_embeddings": True,
              "max_position_embeddings": 131072, "torch_dtype": "bfloat16"}
    result = run("advise", hf_config=config, input_len=512, output_len=128, family="neuron",
                 tpot_max=0.05)
    assert result["options"], result["message"]
    for option in result["options"][:5]:
        assert option["perf_params"]["hf_config"] == config
        perf = run("perf", **option["perf_params"])
        for field in FROM_PERF:
            assert option[field] == perf[field], (option["instance"], field)
        assert perf["fits"] is True and option["tpot_s"] <= 0.05


def test_tokens_per_user_is_the_speed_calculators_figure() -> None:
    """The advisor divided each replica's throughput by its batch (TTFT included) under the
    label the speed calculator uses for 1 / TPOT: 5.53 against 11.74 tokens/s for the same
    inf2.xlarge TP 2 batch-69 setup."""
    result = run("advise", model="llama-3.1-8b", input_len=1024, output_len=256)
    assert result["options"]
    for option in result["options"][:12]:
        perf = run("perf", **option["perf_params"])
        assert option["output_tokens_per_s_per_user"] == perf["output_tokens_per_s_per_user"]
        assert option["output_tokens_per_s_per_user"] == pytest.approx(1 / option["tpot_s"])


def test_a_framework_that_runs_on_none_of_the_family_is_one_error() -> None:
    """It answered "0 options: the model fits on no priced instance" with a rejection per
    instance and TP degree, though the model fits."""
    failure = error("advise", model="llama-3.1-8b", input_len=1024, output_len=256,
                    framework="tensorrt-llm", family="neuron")
    assert (failure["field"], failure["key"]) == ("framework", "framework_unsupported")
    assert "vllm-neuron" in failure["params"]["allowed"]
    assert "tensorrt-llm" not in failure["params"]["allowed"]
    assert run("advise", model="llama-3.1-8b", input_len=1024, output_len=256,
               framework="vllm-neuron", family="neuron")["options"]


def test_serving_on_inferentia1_is_never_estimated() -> None:
    """perf's default framework on inf1 was nxd-inference, which does not run there (a tiny
    model was ranked first on inf1.xlarge)."""
    tiny = dict(layers=2, hidden=256, heads=4, vocab=1000, input_len=128, output_len=128)
    failure = error("perf", instance="inf1.xlarge", **tiny)
    assert (failure["field"], failure["key"]) == ("instance", "no_inference_framework")
    assert failure["params"]["value"] == "Inferentia"
    advised = run("advise", family="neuron", **tiny)
    assert not [o for o in advised["options"] if o["instance"].startswith("inf1.")]
