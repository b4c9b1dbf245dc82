"""QA pass E (report /tmp/qa-e/report.md) on the built pages, in every language: a suggestion
keeps the pasted config.json (item 1) and only applicable ones are offered (item 2); outputs an
input error leaves uncomputed show the presenter's placeholder, the error next to the instance
(item 5); a dot in a Spanish number is said to be a decimal point (item 7); every bad value of a
link is named next to its field (item 8). Expected text from calc.display.present in CPython."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_calculators import page_url, shown_fields
from test_links_pins import computed_once, ready
from test_trust_page import wait_results
from ux_helpers import ux_page_fixture  # noqa: F401 - the `ux_page` fixture (desktop)

from calc.display import LANGS, present, trust

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
CONFIG = (ROOT / "tests" / "calc" / "hf_configs" / "qwen3-30b-a3b.json").read_text(
    encoding="utf-8")
NO_FIT = "?model=custom&instance=trn2.48xlarge&batch=14&input_len=1000&output_len=100000"


def field_error(page: Any, field: str) -> str:
    return page.inner_text(f'.nfg-calc [data-input="{field}"] .nfg-calc__error').strip()


def computed(page: Any) -> int:
    return int(page.get_attribute(".nfg-calc", "data-computed") or 0)


def wait_computed_after(page: Any, count: int) -> None:
    page.wait_for_function(
        "n => Number(document.querySelector('.nfg-calc').dataset.computed) > n",
        arg=count, timeout=30_000)


@pytest.mark.parametrize("lang", LANGS)
def test_a_suggestion_keeps_the_pasted_config(browser_site: Any, ux_page: Any,
                                              lang: str) -> None:
    page = ux_page(page_url(browser_site.base_url, lang, "performance", NO_FIT))
    ready(page)
    computed_once(page)
    before = computed(page)
    page.fill('.nfg-calc [name="hf_config"]', CONFIG)
    wait_computed_after(page, before)
    page.wait_for_selector(".nfg-calc__verdict:not([hidden]) .nfg-calc__suggestions a",
                           timeout=30_000)
    changes = page.eval_on_selector_all(".nfg-calc__suggestions a",
                                        "els => els.map(e => e.dataset.change)")
    assert "kv_dtype" not in changes, changes   # item 2: the page has no such field
    link = page.locator('.nfg-calc__suggestions a[data-change="batch"]')
    before = computed(page)
    link.click()
    wait_computed_after(page, before)
    assert page.input_value('.nfg-calc [name="hf_config"]') == CONFIG   # untouched
    assert wait_results(page, "live") == "live"
    assert field_error(page, "hf_config") == ""
    assert not page.locator(".nfg-calc__verdict").is_visible()
    assert not page.errors, page.errors


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("name", "query", "values"), [
    ("performance", "?instance=inf1.xlarge", {"instance": "inf1.xlarge"}),
    ("performance", "?mode=training&instance=trn3-gen2-ultraserver",
     {"mode": "training", "instance": "trn3-gen2-ultraserver"}),
])
def test_refused_outputs_show_a_placeholder_and_the_instance_error(
        browser_site: Any, ux_page: Any, lang: str, name: str, query: str,
        values: dict[str, str]) -> None:
    page = ux_page(page_url(browser_site.base_url, lang, name, query))
    ready(page)
    computed_once(page)
    assert wait_results(page, "error") == "error"
    expected = present({"calculator": name, "values": values}, lang)
    (error,) = expected["errors"]
    assert error["field"] == "instance"
    assert field_error(page, "instance") == error["message"]
    assert page.inner_text(".nfg-calc__form-error").strip() == ""
    texts = page.eval_on_selector_all(".nfg-calc__outputs:not([hidden]) dd[data-field]",
                                      "els => els.map(e => e.textContent)")
    assert texts and set(texts) == {trust.text(lang, "not_computed")}, texts
    assert all(v is None for v in shown_fields(page).values())
    assert not page.errors, page.errors


@pytest.mark.parametrize("lang", LANGS)
def test_every_bad_value_of_a_link_is_named(browser_site: Any, ux_page: Any, lang: str) -> None:
    values = {"model": "gpt-5", "instance": "inf9.huge", "seq_len": "4096.5" if lang == "es"
              else "1.000"}
    query = "?" + "&".join(f"{k}={v}" for k, v in values.items())
    page = ux_page(page_url(browser_site.base_url, lang, "memory", query))
    ready(page)
    computed_once(page)
    assert wait_results(page, "error") == "error"
    expected = present({"calculator": "memory", "values": values}, lang)
    assert {e["field"] for e in expected["errors"]} == {"model", "instance", "seq_len"}
    for error in expected["errors"]:
        assert field_error(page, error["field"]) == error["message"]
    keys = {e["field"]: e["key"] for e in expected["errors"]}
    assert keys["seq_len"] == ("number_decimal_sign" if lang == "es" else "number_ambiguous")
    assert not page.errors, page.errors
