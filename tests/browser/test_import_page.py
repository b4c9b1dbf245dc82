"""Issue 10 on the calculator pages, in all three languages: the custom form has the MoE fields,
and a config.json is pasted or chosen as a file, read in the worker (the `hf_config` param of the
engine, no network), with the same result as CPython's presenter; a bad file gets a message next
to the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from browser_expect import default_raw
from test_calculators import page_url, set_input, shown_fields, wait_state
from test_trust_page import form_values, results_state, wait_results

from calc import data, display
from calc.display import calculators, present

pytestmark = pytest.mark.browser

LANGS = display.LANGS
# Llama 3.1 8B's config.json (the keys calc.hf_config reads), as published on Hugging Face
LLAMA_CONFIG = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
    "num_key_value_heads": 8, "vocab_size": 128256, "tie_word_embeddings": False,
    "head_dim": 128, "max_position_embeddings": 131072, "torch_dtype": "bfloat16",
}
PARAMS_TYPED = {"en": "46.7B", "ja": "467億", "es": "46,7e9"}  # each page's own writing
MOE = {"params": "", "layers": "32", "hidden": "4096", "heads": "32", "kv_heads": "8",
       "intermediate": "14336", "vocab": "32000", "experts": "8", "active_experts": "2"}


def _wait_live_for(page: Any, computed_before: int) -> str:
    page.wait_for_function(
        "n => Number(document.querySelector('.nfg-calc').dataset.computed || 0) > n",
        arg=computed_before, timeout=30_000)
    return wait_results(page, "live", "error")


def _computed(page: Any) -> int:
    return int(page.get_attribute(".nfg-calc", "data-computed") or 0)


@pytest.mark.parametrize("lang", LANGS)
def test_custom_moe_fields(browser_site: Any, open_page: Any, lang: str) -> None:
    probe = open_page(page_url(browser_site.base_url, lang, "memory"))
    page = probe.page
    assert wait_state(page, "ready", "failed") == "ready"
    set_input(page, "model", "custom")
    for name in ("experts", "active_experts"):
        assert page.is_visible(f'.nfg-calc [data-input="{name}"]'), name
        label = page.inner_text(f'.nfg-calc [data-input="{name}"] label')
        assert label == display.strings.field_labels(lang)[name]
    for name, value in {**MOE, "params": PARAMS_TYPED[lang]}.items():
        before = _computed(page)
        set_input(page, name, value)
        _wait_live_for(page, before)
    expected = present({"calculator": "memory", "values": form_values(page)}, lang)
    assert expected["ok"], expected["errors"]
    assert results_state(page) == "live"
    assert shown_fields(page) == {o["field"]: o["value"] for o in expected["outputs"]}
    assert not probe.console_errors, probe.console_errors


@pytest.mark.skipif(not calculators.HAS_CONFIG, reason="engine without the hf_config param")
@pytest.mark.parametrize("lang", LANGS)
def test_config_json_pasted_dropped_and_refused(browser_site: Any, open_page: Any, lang: str,
                                                tmp_path: Path) -> None:
    probe = open_page(page_url(browser_site.base_url, lang, "memory"))
    page = probe.page
    assert wait_state(page, "ready", "failed") == "ready"
    set_input(page, "model", "custom")
    field = '.nfg-calc [data-input="hf_config"]'
    assert page.is_visible(field)
    # 1. pasted
    text = json.dumps(LLAMA_CONFIG, indent=2)
    before = _computed(page)
    page.fill('.nfg-calc [name="hf_config"]', text)
    assert _wait_live_for(page, before) == "live"
    values = form_values(page)
    expected = present({"calculator": "memory", "values": values}, lang)
    assert expected["ok"], expected["errors"]
    assert shown_fields(page) == {o["field"]: o["value"] for o in expected["outputs"]}
    # same figures as the preset the config describes
    preset = present({"calculator": "memory",
                      "values": {**default_raw("memory"), "model": "llama-3.1-8b"}}, lang)
    assert {o["field"]: o["value"] for o in preset["outputs"]}["weights_bytes"] == \
        shown_fields(page)["weights_bytes"]
    # 2. chosen as a file (the drop handler reads the same File object)
    page.fill('.nfg-calc [name="hf_config"]', "")
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**LLAMA_CONFIG, "num_hidden_layers": 16}), encoding="utf-8")
    before = _computed(page)
    page.set_input_files(f"{field} [data-config-file]", str(path))
    assert _wait_live_for(page, before) == "live"
    assert json.loads(page.input_value('.nfg-calc [name="hf_config"]'))["num_hidden_layers"] == 16
    expected = present({"calculator": "memory", "values": form_values(page)}, lang)
    assert shown_fields(page) == {o["field"]: o["value"] for o in expected["outputs"]}
    # 3. not JSON: a message next to the field, in the page language
    before = _computed(page)
    page.fill('.nfg-calc [name="hf_config"]', "{not json")
    assert _wait_live_for(page, before) == "error"
    expected = present({"calculator": "memory", "values": form_values(page)}, lang)
    message = next(e["message"] for e in expected["errors"] if e["field"] == "hf_config")
    assert page.inner_text(f"{field} .nfg-calc__error").strip() == message
    # no network: every request stayed on the site's host
    assert all(urlsplit(u).hostname in ("127.0.0.1", None) for u in probe.requests
               if urlsplit(u).scheme in ("http", "https"))
    assert not probe.console_errors, probe.console_errors


@pytest.mark.skipif(not calculators.HAS_CONFIG, reason="engine without the hf_config param")
@pytest.mark.parametrize("lang", LANGS)
def test_copy_link_says_a_pasted_config_json_is_not_in_it(browser_site: Any, open_page: Any,
                                                          lang: str) -> None:
    """QA stop 47: the link left the pasted config.json out without a word (opened, it asked
    for a model)."""
    strings = data.i18n(lang, "calculators")["action"]
    probe = open_page()
    probe.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = probe.page
    page.goto(page_url(browser_site.base_url, lang, "memory"), wait_until="domcontentloaded")
    assert wait_state(page, "ready", "failed") == "ready"
    set_input(page, "model", "custom")
    before = _computed(page)
    page.fill('.nfg-calc [name="hf_config"]', json.dumps(LLAMA_CONFIG))
    assert _wait_live_for(page, before) == "live"
    page.click('.nfg-calc [data-action="copy-link"]')
    page.wait_for_function(
        "t => document.querySelector('.nfg-calc [data-action=\"copy-link\"]').textContent === t",
        arg=strings["copied_without_config"], timeout=10_000)
    assert "hf_config" not in page.evaluate("navigator.clipboard.readText()")
    assert not probe.console_errors, probe.console_errors
