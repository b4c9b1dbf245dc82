"""Units of the figures fact() and the tables print (no build: fake page objects)."""

from __future__ import annotations

import statistics
from types import SimpleNamespace

import pytest

import calc.calibration
import calc.data
from calc.display import LANGS  # the one language list (mkdocs.yml)
from site_macros import compute, facts, formatting, tables, units, values

pytestmark = pytest.mark.site

FACT_KINDS = {"chip": "chips", "core": "cores", "instance": "instances", "model": "models",
              "measurement": "measurements", "framework": "frameworks"}
# numeric data fields that are counts or ratios: they print without a unit
UNITLESS = {"cores_per_chip", "lnc_default", "hbm_stacks", "dma_engines", "cc_cores",
            "neuronlink_links", "memory_pool_chips", "fp8_e4m3_max", "chip_count", "vcpu",
            "params", "active_params", "layers", "hidden", "heads", "kv_heads", "head_dim",
            "intermediate", "vocab", "experts", "active_experts", "max_position_embeddings",
            "tp", "dp", "pp", "batch", "micro_batch", "global_batch", "input_len", "output_len",
            "seq_len", "instance_count", "tp_degrees", "ultracluster_chips",
            # models helper (issue 10): architecture counts and published parameter counts
            "expert_intermediate", "shared_experts", "shared_expert_intermediate",
            "dense_layers", "q_lora_rank", "kv_lora_rank", "qk_rope_head_dim",
            "qk_nope_head_dim", "v_head_dim", "local_layers", "local_window",
            "params_published", "active_params_published",
            # measurement counts (meas): requests in flight, compiled shapes, parallel degrees
            "concurrency", "compiled_batch", "seq_bucket", "cp", "ep", "virtual_pp",
            "output_len_requested", "max_running_batch", "max_num_tokens", "run_requests",
            "concurrency_cap", "output_len_sd", "cold_replicas", "prefill_chunk_tokens",
            # frameworks: bucket sizes and limits in tokens or requests
            "bucket_min_tokens", "default_max_batch"}


def env_for(lang: str = "en", src_uri: str = "guide/x.md") -> SimpleNamespace:
    return SimpleNamespace(page=SimpleNamespace(file=SimpleNamespace(
        src_uri=f"{lang}/{src_uri}", locale=lang)))


def unit_labels(lang: str) -> dict[str, str]:
    return calc.data.i18n(lang, "site")["unit"]


def numeric_fields() -> list[tuple[str, str, str]]:
    """(fact kind, record id, field) for every numeric figure in the data, one per field name."""
    seen: set[str] = set()
    out = []
    for kind, name in FACT_KINDS.items():
        for rec in calc.data.records(name):
            for key, value in rec.items():
                paths = ([f"{key}.{sub}" for sub, v in value.items() if _is_number(v)]
                         if isinstance(value, dict) else [key] if _is_number(value) else [])
                for path in paths:
                    if path not in seen:
                        seen.add(path)
                        out.append((kind, str(rec["id"]), path))
    return out


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


@pytest.mark.parametrize(("kind", "record_id", "field"), numeric_fields())
def test_every_numeric_field_has_a_unit_or_is_a_count(kind, record_id, field):
    key = units.unit_key(field)
    head = field.partition(".")[0]
    assert key or head in UNITLESS, f"{field}: no unit from its name and not a known count"
    for lang in LANGS:
        text = facts.fact(env_for(lang), kind, record_id, field)
        if key:
            assert unit_labels(lang)[key] in text, (lang, field, text)


@pytest.mark.parametrize("lang", LANGS)
def test_integer_dtypes_are_tops_not_tflops(lang):
    chip = next(c for c in calc.data.records("chips") if "int8" in c.get("dense_tflops", {}))
    int8 = facts.fact(env_for(lang), "chip", chip["id"], "dense_tflops.int8")
    assert int8.endswith("\u00a0TOPS") and "TFLOPS" not in int8
    assert facts.fact(env_for(lang), "chip", chip["id"], "dense_tflops.bf16").endswith("TFLOPS")


@pytest.mark.parametrize(("field", "unit"), [
    ("clocks_ghz.tensor", "ghz"), ("throughput_per_s", "per_s"),
    ("sequences_per_s", "sequences_per_s"), ("tokens_per_s", "tokens_per_s"),
    ("vector_flop_per_cycle", "flop_per_cycle"), ("latency_p50_s", "s"),
    ("dense_tflops.int8", "tops"), ("sparse_tflops.fp8", "tflops"),
    ("runtime_overhead_bytes", "bytes"),
])
def test_unit_keys_of_rates_clocks_and_integer_ops(field, unit):
    assert units.unit_key(field) == unit


def test_a_rate_without_a_stated_item_prints_per_second_not_seconds():
    rec = next(m for m in calc.data.records("measurements") if "throughput_per_s" in m)
    text = facts.fact(env_for(), "measurement", rec["id"], "throughput_per_s")
    assert text == formatting.number(rec["throughput_per_s"], "en") + "/s"
    ja = facts.fact(env_for("ja"), "measurement", rec["id"], "throughput_per_s")
    assert ja.endswith("/秒")


@pytest.mark.parametrize("lang", LANGS)
def test_byte_assumptions_print_in_mib_or_gib(lang):
    for rec in calc.data.records("assumptions"):
        if rec.get("unit") != "B":
            continue
        text = facts.fact(env_for(lang), "assumption", rec["id"], "value")
        value = rec["value"]
        if value >= 2**30:
            expected = formatting.number(value / 2**30, lang) + "\u00a0GiB"
        else:
            expected = formatting.number(value / 2**20, lang) + "\u00a0MiB"
        assert text == expected, (rec["id"], text)


def test_every_assumption_unit_is_known_and_fractions_are_percentages():
    for rec in calc.data.records("assumptions"):
        text = facts.fact(env_for(), "assumption", rec["id"], "value")
        assert text
        if rec.get("unit") == "fraction":
            assert text.endswith("%"), (rec["id"], text)
    with pytest.raises(units.UnknownUnitError):
        values.assumption_value(1, "furlong", "en")


@pytest.mark.parametrize("lang", ["ja", "es"])
def test_missing_reason_follows_the_translated_label_in_the_page_language(lang):
    """The data's reason comes from its `_ja`/`_es` sibling (calc.display.data_text); only a
    record without one shows the English text, marked lang="en"."""
    label = calc.data.i18n(lang, "site")["text"]["not_published"]
    record = {"network_gbps_missing": "Not in the public docs.",
              f"network_gbps_missing_{lang}": "<traducción>"}
    out = values.missing(record, "network_gbps", lang)
    assert out.index(label) < out.index("&lt;traducción&gt;")
    assert 'lang="en"' not in out and "Not in the public docs." not in out
    untranslated = values.missing({"network_gbps_missing": "Not in the public docs."},
                                  "network_gbps", lang)
    assert 'lang="en"' in untranslated
    assert 'lang="en"' not in values.missing(record, "network_gbps", "en")
    with pytest.raises(KeyError):  # an English text is never passed as a reason key
        values.not_published("Not in the public docs.", lang)


@pytest.mark.parametrize("lang", LANGS)
def test_calc_reason_keys_are_translated_never_shown_raw(lang):
    reasons = calc.data.i18n(lang, "steps")["reason"]
    for key in reasons:
        out = values.not_published(key, lang)
        assert f"({key})" not in out, out
        assert 'lang="en"' not in out
    label = calc.data.i18n(lang, "site")["text"]["not_published"]
    assert values.not_published("not_published", lang) == (
        f'<span class="nfg-missing">{label}</span>')


def _expected_summary(kind: str, use: str, field: str, stat: str) -> float:
    errors = [abs(r[f"{field}_error"]) for r in calc.calibration.report()
              if r["kind"] == kind and r["use"] == use and r.get(f"{field}_error") is not None]
    return statistics.median(errors) if stat == "median" else max(errors)


@pytest.mark.parametrize("kind", ["neuron", "gpu"])
@pytest.mark.parametrize("stat", ["median", "max"])
@pytest.mark.parametrize("lang", LANGS)
def test_calibration_summary_formats_calcs_errors(kind, stat, lang):
    value = _expected_summary(kind, "calibration", "ttft_s", stat)
    shown = tables.calibration_summary(env_for(lang), kind, "calibration", "ttft_s", stat)
    assert shown == formatting.percent(value, lang, 1)


def test_calibration_summary_rejects_unknown_arguments():
    for args in (("tpu", "calibration", "ttft_s"), ("neuron", "reference", "ttft_s"),
                 ("neuron", "calibration", "e2e_s"), ("neuron", "calibration", "ttft_s", "mean")):
        with pytest.raises(compute.CalibrationSummaryError):
            tables.calibration_summary(env_for(), *args)


def test_calibration_table_has_a_kind_column():
    html = tables.calibration_table(env_for("es", "reference/measurements.md"))
    kinds = calc.data.i18n("es", "site")["kind"]
    rows = calc.calibration.report()
    for kind in {r["kind"] for r in rows}:
        assert html.count(f"<td>{kinds[kind]}</td>") == sum(r["kind"] == kind for r in rows)


@pytest.mark.parametrize("lang", LANGS)
def test_claims_table_topics_are_in_the_page_language(lang):
    html = tables.claims_table(env_for(lang, "guide/claims.md"))
    field = "topic" if lang == "en" else f"topic_{lang}"
    claims = calc.data.records("claims")
    for claim in claims:
        assert f"<td>{values.html.escape(claim[field])}</td>" in html, claim["id"]
    if lang != "en":
        assert all(c[field] != c["topic"] for c in claims)
