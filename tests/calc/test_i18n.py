"""steps.toml / errors.toml: same keys in en/ja/es, and every key calc emits has a label."""

import tomllib
from pathlib import Path

from calc_helpers import run

from calc import display, inputs
from calc.data_lang import OVERLAY_FILE
from calc.errors import _ENGLISH

I18N = Path(__file__).resolve().parents[2] / "data" / "i18n"
LANGS = display.LANGS  # the one language list (mkdocs.yml)


def load(lang: str, name: str) -> dict[str, dict[str, str]]:
    with (I18N / lang / f"{name}.toml").open("rb") as handle:
        return tomllib.load(handle)


def keys(table: dict[str, dict[str, str]]) -> dict[str, set[str]]:
    return {section: set(values) for section, values in table.items()}


def test_same_keys_in_every_language() -> None:
    for name in ("steps", "errors"):
        english = keys(load("en", name))
        for lang in LANGS[1:]:
            assert keys(load(lang, name)) == english, (lang, name)


def test_english_error_templates_match_the_engine() -> None:
    assert load("en", "errors")["error"] == _ENGLISH


def test_placeholders_are_kept_in_translations() -> None:
    english = load("en", "errors")["error"]
    for lang in LANGS[1:]:
        for key, template in load(lang, "errors")["error"].items():
            for placeholder in ("{field}", "{min}", "{max}", "{value}", "{allowed}"):
                assert (placeholder in template) == (placeholder in english[key]), (lang, key)


def test_every_emitted_step_and_field_has_a_label() -> None:
    steps = load("en", "steps")
    results = [
        run("memory", model="llama-3.1-8b", instance="inf2.48xlarge", seq_len=128),
        run("perf", model="llama-3.1-8b", instance="inf2.48xlarge", input_len=128,
            output_len=16),
        run("train", model="llama-3.1-8b", instance="trn1.32xlarge", tokens=10**9, seq_len=512),
        run("train_memory", model="llama-3.1-8b", instance="trn1.32xlarge", seq_len=512),
        run("price", instance="trn1.32xlarge"),
    ]
    for result in results:
        for step in result["derivation"]:
            assert step["key"] in steps["step"], step["key"]
        for field in result:
            if field != "derivation":
                assert field in steps["step"] or field in steps["field"], field
        for bound in ("decode_bound", "prefill_bound"):
            if bound in result:
                assert result[bound] in steps["bound"]
        if "kv_rule" in result:
            assert result["kv_rule"] in steps["kv_rule"]


def test_every_input_has_a_label() -> None:
    labels = load("en", "errors")["input"]
    for name in (*inputs.MODEL_FIELDS, *inputs.LIMITS):
        assert name in labels, name


def test_translations_have_one_shape() -> None:
    """Every data/i18n/<lang>/*.toml is tables of key = text (no nesting, no lists), the same
    files in every language (besides the data texts of a non-English language, data.toml:
    calc.data_lang), one directory per site language."""
    assert sorted(p.name for p in I18N.iterdir() if p.is_dir()) == sorted(LANGS)
    files = sorted(p.name for p in (I18N / "en").glob("*.toml"))
    assert OVERLAY_FILE not in files
    for lang in LANGS:
        found = sorted(p.name for p in (I18N / lang).glob("*.toml") if p.name != OVERLAY_FILE)
        assert found == files, lang
        assert lang == "en" or (I18N / lang / OVERLAY_FILE).is_file(), lang
        for name in files:
            table = load(lang, name.removesuffix(".toml"))
            for section, values in table.items():
                assert isinstance(values, dict), (lang, name, section)
                bad = [k for k, v in values.items() if not isinstance(v, str)]
                assert not bad, (lang, name, section, bad)
