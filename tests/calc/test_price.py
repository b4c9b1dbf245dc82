"""Price: $/hour, month, total, normalisations, missing prices, comparison."""

import pytest
from calc_helpers import error, run

from calc import data


def test_trn1_32xlarge_on_demand_us_east_1() -> None:
    # Source: data/prices.toml (AWS price list via the SkyPilot catalog): $21.50/h.
    result = run("price", instance="trn1.32xlarge", hours=10)
    assert result["usd_per_hour"] == 21.50
    assert result["usd_total"] == pytest.approx(215.0)
    month = data.assumption_value("hours_per_month")
    assert result["usd_per_month"] == pytest.approx(21.50 * month)
    assert result["usd_per_chip_hour"] == pytest.approx(21.50 / 16)
    assert result["usd_per_gib_hour"] == pytest.approx(21.50 / 512)
    # headline dense BF16: 16 chips × 190 TFLOPS = 3.04 PFLOPS
    assert result["usd_per_bf16_pflop_hour"] == pytest.approx(21.50 / 3.04)


def test_unpublished_price_is_null_with_reason_never_a_number() -> None:
    result = run("price", instance="trn2.48xlarge")
    for field in ("usd_per_hour", "usd_total", "usd_per_month", "usd_per_chip_hour",
                  "usd_per_gib_hour", "usd_per_bf16_pflop_hour"):
        assert result[field] is None
    assert result["price_missing_reason"] == "not_published"


def test_instance_without_price_row_in_region_falls_back_labelled() -> None:
    # no trn1.32xlarge row in eu-west-2: the on-demand rate of another region, labelled
    result = run("price", instance="trn1.32xlarge", region="eu-west-2")
    assert result["usd_per_hour"] == 21.50
    assert result["price_missing_reason"] is None
    assert result["price_kind_used"] == "on-demand"
    assert result["price_region_used"] in ("us-east-1", "us-west-2")
    assert result["price_fallback_reason"] == "price_region_fallback"
    assert result["price_sources"]


def test_unknown_region() -> None:
    failure = error("price", instance="trn1.32xlarge", region="mars-1")
    assert failure["key"] == "unknown_region" and failure["field"] == "region"


def test_gpu_without_published_bf16_peak() -> None:
    result = run("price", instance="g5.xlarge")
    assert result["usd_per_hour"] is not None
    assert result["usd_per_bf16_pflop_hour"] is None
    assert result["peak_missing_reason"] == "peak_flops_missing"


def test_compare_includes_gpus_and_per_token_cost() -> None:
    result = run("compare", instances="inf2.48xlarge,p5.48xlarge,trn2.48xlarge",
                 model="llama-3.1-8b", input_len=128, output_len=128)
    rows = {row["instance"]: row for row in result["rows"]}
    assert set(rows) == {"inf2.48xlarge", "p5.48xlarge", "trn2.48xlarge"}
    assert rows["p5.48xlarge"]["usd_per_million_output_tokens"] > 0
    assert rows["trn2.48xlarge"]["usd_per_million_output_tokens"] is None
    everything = run("compare")
    assert len(everything["rows"]) == len(data.instance_ids())


def test_results_are_plain_json() -> None:
    import json

    for kind, params in (("compare", {"model": "llama-3.1-8b"}), ("list", {"what": "chips"}),
                         ("price", {"instance": "p5e.48xlarge"})):
        json.dumps(run(kind, **params), allow_nan=False)


def test_price_fallback_can_be_turned_off_for_record_tables() -> None:
    # the site's price tables list records: without fallback an unpublished rate stays null
    result = run("price", instance="p5e.48xlarge", price_fallback=False)
    assert result["usd_per_hour"] is None and result["price_kind_used"] is None
    assert result["price_missing_reason"] == "not_published"
    assert run("price", instance="p5e.48xlarge")["usd_per_hour"] == 43.26
