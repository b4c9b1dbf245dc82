"""QA (Stop 46): train timed every device of ``count`` although its layout used fewer, so
advise-train offered 5 × p5.4xlarge (layout tp 1 × pp 2 × dp 2: 4 GPUs) as 20 % faster than 4
for the same work, meeting a deadline the layout could not. Now a layout that uses every device
comes first, and where none fits the time counts only the devices the layout uses (the idle
ones are still paid for). And a setup that does not fit keeps no time or cost in its math."""

from typing import Any

import pytest
from calc_helpers import run

from calc import data, flops

SPEED_AND_COST_STEPS = {"time_s", "tokens_per_s", "instance_hours", "cost_usd", "mfu",
                        "hardware_efficiency", "error_band_tokens_per_s", "basis",
                        "peak_flops_per_s"}


def train(**params: Any) -> dict[str, Any]:
    return run("train", model="llama-3.1-8b", instance="p5.4xlarge", tokens=10**10, **params)


def test_a_layout_that_uses_every_device_comes_first() -> None:
    # the QA case: 5 × p5.4xlarge at 4,096 tokens (it was tp 1 × pp 2 × dp 2 = 4 of 5 GPUs)
    result = train(count=5, seq_len=4096)
    layout = result["training_layout"]
    assert layout["devices"] == layout["devices_available"] == 5
    assert layout["tp"] * layout["pp"] * layout["dp"] == 5


def test_idle_devices_add_cost_not_speed() -> None:
    # at 32,768 tokens only tp 1 × pp 4 × dp 1 fits on 6 GPUs: two idle
    six = train(count=6, seq_len=32768)
    four = train(count=4, seq_len=32768)
    assert six["training_layout"]["devices"] == 4
    assert six["training_layout"]["devices_available"] == 6
    assert {k: six["training_layout"][k] for k in ("tp", "pp", "dp", "recompute")} == \
        {k: four["training_layout"][k] for k in ("tp", "pp", "dp", "recompute")}
    assert six["time_s"] == pytest.approx(four["time_s"], rel=1e-12)
    assert six["cost_usd"] == pytest.approx(four["cost_usd"] * 6 / 4, rel=1e-12)
    assert six["mfu"] == pytest.approx(four["mfu"], rel=1e-12)   # of the devices that work
    steps = {s["key"]: s for s in six["derivation"]}
    assert steps["devices_used"]["value"] == "4 / 6"
    assert "devices used share" in steps["time_s"]["formula"]
    assert "devices_used" not in {s["key"] for s in four["derivation"]}


def test_devices_used_by_hand() -> None:
    model, instance = data.model("llama-3.1-8b"), data.instance("p5.4xlarge")
    common = {"tokens": 10**9, "seq_len": 4096, "dtype": "bf16", "mfu": 0.4,
              "usd_per_hour": 10.0, "price_missing_reason": None}
    all_four = flops.train(model, instance, count=4, **common)
    three_of_four = flops.train(model, instance, count=4, devices_used=3, **common)
    # time = FLOPs / (count × share × peak × MFU): 4/3 as long, and 4 instances paid
    assert three_of_four.time_s == pytest.approx(all_four.time_s * 4 / 3, rel=1e-12)
    assert three_of_four.cost_usd == pytest.approx(all_four.cost_usd * 4 / 3, rel=1e-12)
    hand = all_four.total_flops / (3 * all_four.peak_flops_per_s * 0.4)
    assert three_of_four.time_s == pytest.approx(hand, rel=1e-12)


def test_advise_train_never_pays_for_idle_speed() -> None:
    """8B at 32,768 tokens on p5.4xlarge: 4 to 7 instances run the same tp 1 × pp 4 × dp 1
    layout (the others idle), 8 run dp 2. A 200 h deadline needs 8; 5 to 7 are no faster than
    4 (321.8 h), so the advisor must not stop at 5 as if time fell with the count."""
    params = {"model": "llama-3.1-8b", "tokens": 10**10, "seq_len": 32768}
    result = run("advise_train", **params, deadline_h=200, family="gpu")
    p5 = next(o for o in result["options"] if o["instance"] == "p5.4xlarge")
    assert p5["instance_count"] == 8 and p5["time_h"] <= 200
    for count in (5, 6, 7):   # the idle-device counts
        idle = run("train", **params, instance="p5.4xlarge", count=count)
        assert idle["training_layout"]["devices"] == 4 < idle["training_layout"][
            "devices_available"]
        assert idle["time_h"] > 200
    for option in result["options"]:   # every option: the fewest instances that meet it
        again = run("train", **params, instance=option["instance"],
                    count=option["instance_count"])
        assert again["time_h"] == option["time_h"] <= 200
        if option["instance_count"] > option["memory_count"]:
            fewer = run("train", **params, instance=option["instance"],
                        count=option["instance_count"] - 1)
            assert fewer["time_h"] is None or fewer["time_h"] > 200, option["instance"]


def test_no_time_or_cost_in_the_math_of_a_setup_that_does_not_fit() -> None:
    result = run("train", model="llama-3.1-8b", instance="g5.xlarge", count=2, tokens=10**9,
                 seq_len=2048)
    assert result["fits"] is False
    keys = {s["key"] for s in result["derivation"]}
    assert not keys & SPEED_AND_COST_STEPS, keys & SPEED_AND_COST_STEPS
    steps = {s["key"]: s for s in result["derivation"]}
    assert steps["per_device_bytes"]["value"] == result["fit_reason"]["params"][
        "per_device_bytes"]
    assert steps["capacity_per_device_bytes"]["value"] > 0
    assert steps["per_device_bytes"]["value"] > steps["capacity_per_device_bytes"]["value"]


@pytest.mark.parametrize("mfu", [1.0, 0.9, None])
def test_band_never_faster_than_the_peak(mfu: float | None) -> None:
    """QA: with --mfu 1 the band's low time needed 136 % of the peak."""
    params: dict[str, Any] = {"model": "llama-3.1-8b", "instance": "trn1.32xlarge", "count": 4,
                              "tokens": 10**10, "seq_len": 4096}
    if mfu is not None:
        params["mfu"] = mfu
    result = run("train", **params)
    at_peak_s = result["total_flops"] / (4 * result["peak_flops_per_s"])   # MFU 1
    low, high = result["error_band"]["time_s"]
    assert low >= at_peak_s * (1 - 1e-12)
    assert low <= result["time_s"] <= high
    rate_low, rate_high = result["error_band"]["tokens_per_s"]
    assert rate_high <= 10**10 / at_peak_s * (1 + 1e-12)
    capped = "MFU = 1" in {s["key"]: s for s in result["derivation"]}[
        "error_band_tokens_per_s"]["formula"]
    assert capped == (low == pytest.approx(at_peak_s, rel=1e-9))   # said where it applies
    if mfu == 1.0:
        assert capped and result["time_s"] == pytest.approx(at_peak_s, rel=1e-12)


def test_cli_says_the_idle_devices() -> None:
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    shown = subprocess.run(
        [sys.executable, "-m", "calc", "train", "--model", "llama-3.1-8b", "--instance",
         "p5.4xlarge", "--count", "6", "--tokens", "1e10", "--seq-len", "32768"], cwd=root,
        capture_output=True, text=True, check=True, timeout=120).stdout
    assert "uses 4 of the 6 devices; the others idle but are paid for" in shown
