"""Reference tables generated from data (ARCHITECTURE.md §3); every figure from data or calc."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from babel.numbers import format_compact_decimal

from . import compute, data, formatting, markdown, page, values

PRICE_REGION = "us-east-1"
FAMILY_ORDER = ("inf1", "inf2", "trn1", "trn1n", "trn2", "trn2u", "trn2-ultraserver",
                "trn3-ultraserver", "trn3", "g4dn", "g5", "p3dn", "p4d", "p5", "p5e", "p5en")


@dataclass(frozen=True)
class Column:
    header: str                 # key in site.toml [header]
    fields: tuple[str, ...]     # the first field present is shown (e.g. memory_gib or memory_gb)
    kinds: tuple[str, ...] = ("neuron", "gpu")  # record kinds the column applies to


# The field of `record` a column shows: the first one present, else the first one named
def _pick(record: data.Record, column: Column) -> str:
    for name in column.fields:
        if data.field(record, name) is not None:
            return name
    for name in column.fields:
        if data.missing_reason(record, name):
            return name
    return column.fields[0]


def _cells(record: data.Record, columns: tuple[Column, ...], lang: str,
           default_kind: str = "neuron") -> list[str]:
    """The columns' cells; a column whose kinds do not include the record's kind (default_kind
    where it has none) says "not applicable"."""
    text = data.labels(lang)["text"]
    out = []
    for column in columns:
        if record.get("kind", default_kind) not in column.kinds:
            out.append(text["not_applicable"])
        else:
            out.append(values.cell(record, _pick(record, column), lang))
    return out


def _headers(keys: list[str], lang: str) -> list[str]:
    headers = data.labels(lang)["header"]
    return [headers[key] for key in keys]


def _label(lang: str, section: str, key: str) -> str:
    return html.escape(data.labels(lang).get(section, {}).get(str(key), str(key)))


# Links to the sources page for a list of source ids (HTML: tables are raw HTML blocks)
def source_links(env: Any, source_ids: list[str]) -> str:
    target = page.url_to(env, "reference/sources/")
    links = ", ".join(markdown.html_link(sid, f"{target}#{sid}") for sid in source_ids)
    return f'<span class="nfg-sources">{links}</span>'


# The on-demand price of an instance in PRICE_REGION with region and date, or "not published"
def price_with_date(env: Any, instance_id: str) -> str:
    lang = page.lang(env)
    rec = data.price_record(instance_id, PRICE_REGION, "on-demand")  # calc's rule: the newest
    if rec is not None:
        if rec.get("usd_per_hour") is None:
            return values.missing(rec, "usd_per_hour", lang)
        return data.labels(lang)["text"]["price_at"].format(
            price=values.cell(rec, "usd_per_hour", lang), region=rec["region"],
            date=values.display(rec["as_of"], "as_of", lang))
    return values.not_published(data.labels(lang)["text"]["no_price_record"], lang, lang)


CHIP_COLUMNS = (
    Column("vendor", ("vendor",)),
    Column("core", ("core",), ("neuron",)),
    Column("cores_per_chip", ("cores_per_chip",), ("neuron",)),
    Column("memory_type", ("memory_type",)),
    Column("memory", ("memory_gib", "memory_gb")),
    Column("memory_bandwidth", ("memory_bandwidth_gib_per_s", "memory_bandwidth_gb_per_s",
                                "memory_bandwidth_tb_per_s")),
    Column("bf16_dense", ("dense_tflops.bf16",)),
    Column("fp8_dense", ("dense_tflops.fp8",)),
    Column("fp32_dense", ("dense_tflops.fp32",)),
    Column("bf16_sparse", ("sparse_tflops.bf16",)),
    Column("neuronlink", ("neuronlink",), ("neuron",)),
    Column("topology", ("topology",)),
    Column("compute_dtypes", ("compute_dtypes",)),  # issue 9/13: which number formats it computes
)


def chips_table(env: Any) -> str:
    lang = page.lang(env)
    headers = _headers(["chip"] + [c.header for c in CHIP_COLUMNS] + ["sources"], lang)
    rows = []
    for chip in data.records("chips"):
        cells = _cells(chip, CHIP_COLUMNS, lang)
        if chip.get("core"):  # the core's name, not its id
            cells[1] = html.escape(str(data.by_id("cores", chip["core"])["name"]))
        rows.append([html.escape(chip["name"]), *cells, source_links(env, chip["sources"])])
    return markdown.table(headers, rows)


CORE_COLUMNS = (
    Column("engines", ("engines",)),
    Column("sbuf", ("sbuf_mib",)),
    Column("psum", ("psum_mib",)),
    Column("bf16_dense", ("tensor_dense_tflops.bf16",)),
    Column("fp8_dense", ("tensor_dense_tflops.fp8",)),
    Column("fp32_dense", ("tensor_dense_tflops.fp32",)),
    Column("sparsity_patterns", ("sparsity_patterns",)),
    Column("data_types", ("data_types",)),
)


def cores_table(env: Any) -> str:
    lang = page.lang(env)
    headers = _headers(["core"] + [c.header for c in CORE_COLUMNS] + ["sources"], lang)
    rows = [[html.escape(core["name"]), *_cells(core, CORE_COLUMNS, lang),
             source_links(env, core["sources"])]
            for core in data.records("cores")]
    return markdown.table(headers, rows)


INSTANCE_COLUMNS = (
    Column("chip_count", ("chip_count",)),
    Column("vcpu", ("vcpu",)),
    Column("host_memory", ("host_memory_gib",)),
    Column("accelerator_memory", ("accelerator_memory_gib", "accelerator_memory_gb")),
    Column("memory_bandwidth", ("accelerator_memory_bandwidth_gib_per_s",
                                "accelerator_memory_bandwidth_gb_per_s",
                                "accelerator_memory_bandwidth_tb_per_s")),
    Column("interconnect", ("interconnect",)),
    Column("interconnect_per_chip", ("interconnect_gib_per_s_per_chip",
                                     "interconnect_gb_per_s_per_chip")),
    Column("network", ("network_gbps",)),
    Column("efa", ("efa",)),
    Column("tp_degrees", ("tp_degrees",)),
)


def families() -> list[str]:
    """Instance families present in the data, in the contract's order."""
    present = {rec["family"] for rec in data.records("instances")}
    return [f for f in FAMILY_ORDER if f in present] + sorted(present - set(FAMILY_ORDER))


def instances_table(env: Any, family: str) -> str:
    lang = page.lang(env)
    members = [rec for rec in data.records("instances") if rec["family"] == family]
    if not members:
        raise KeyError(f"no instances in family {family!r}")
    headers = _headers(["instance", "chip"] + [c.header for c in INSTANCE_COLUMNS]
                       + ["price_on_demand", "sources"], lang)
    rows = [[markdown.code(rec["id"]), html.escape(data.by_id("chips", rec["chip"])["name"]),
             *_cells(rec, INSTANCE_COLUMNS, lang), price_with_date(env, rec["id"]),
             source_links(env, rec["sources"])] for rec in members]
    return markdown.table(headers, rows)


def _normalised(env: Any, instance_id: str, region: str, kind: str = "on-demand") -> list[str]:
    """$/h and the normalised prices from calc; a missing price gives its reason once ($/h) and
    the bare label in the derived columns."""
    lang = page.lang(env)
    result = compute.price(instance_id, region, kind)
    reason = str(result.get("price_missing_reason") or "")
    record = data.price_record(instance_id, region, kind)
    if result.get("price_missing_note") and record is not None:
        first = values.missing(record, "usd_per_hour", lang)  # the data's reason, translated
    else:
        first = values.not_published(reason, lang)
    cells: list[str] = []
    for name in ("usd_per_hour", "usd_per_chip_hour", "usd_per_gib_hour",
                 "usd_per_bf16_pflop_hour"):
        value = result.get(name)
        if value is None and reason:
            cells.append(first if not cells else values.not_published("", lang))
        else:
            peak_reason = str(result.get("peak_missing_reason") or "")
            cells.append(values.computed_cell(value, name, lang, peak_reason))
    return cells


def _without_bf16_peak(cells: list[str], chip: data.Record, lang: str) -> list[str]:
    """No $/BF16-PFLOP-hour for a chip that has no BF16 (data: `compute_dtypes`, issue 13; calc
    will stop computing it too, see issue 9)."""
    if "bf16" in chip.get("compute_dtypes", ["bf16"]):
        return cells
    if data.missing_reason(chip, "dense_tflops.bf16"):
        return [*cells[:-1], values.missing(chip, "dense_tflops.bf16", lang)]
    return [*cells[:-1], values.not_published("peak_flops_missing", lang)]


def neuron_vs_gpu_table(env: Any) -> str:
    lang = page.lang(env)
    headers = _headers(["instance", "kind", "chip", "chip_count", "accelerator_memory",
                        "bf16_dense_per_chip", "usd_per_hour", "usd_per_chip_hour",
                        "usd_per_gib_hour", "usd_per_bf16_pflop_hour"], lang)
    rows = []
    for rec in data.records("instances"):
        chip = data.by_id("chips", rec["chip"])
        memory = _pick(rec, INSTANCE_COLUMNS[3])
        rows.append([markdown.code(rec["id"]), _label(lang, "kind", rec["kind"]),
                     html.escape(chip["name"]),
                     values.cell(rec, "chip_count", lang), values.cell(rec, memory, lang),
                     values.cell(chip, "dense_tflops.bf16", lang),
                     *_without_bf16_peak(_normalised(env, rec["id"], PRICE_REGION), chip, lang)])
    return markdown.table(headers, rows)


def prices_table(env: Any) -> str:
    lang = page.lang(env)
    headers = _headers(["instance", "region", "price_kind", "usd_per_hour", "usd_per_chip_hour",
                        "usd_per_gib_hour", "usd_per_bf16_pflop_hour", "as_of", "sources"], lang)
    rows = []
    for rec in data.records("prices"):
        figures = _normalised(env, rec["instance"], rec["region"], rec.get("kind", "on-demand"))
        rows.append([markdown.code(rec["instance"]), html.escape(rec["region"]),
                     _label(lang, "price_kind", rec.get("kind", "on-demand")), *figures,
                     html.escape(values.display(rec["as_of"], "as_of", lang)),
                     source_links(env, rec["sources"])])
    return markdown.table(headers, rows)


# Measurement kinds (data/measurements.toml: "inference" when absent, or "training"): a training
# row has a TP degree, weight dtype, framework and release like a serving row, and its own speed
INFERENCE, TRAINING = "inference", "training"
MEASUREMENT_COLUMNS = (
    Column("tp", ("tp",), (INFERENCE, TRAINING)),
    Column("batch", ("batch",), (INFERENCE,)),
    Column("input_len", ("input_len",), (INFERENCE,)),
    Column("output_len", ("output_len",), (INFERENCE,)),
    Column("dtype", ("dtype",), (INFERENCE, TRAINING)),
    Column("ttft", ("ttft_s",), (INFERENCE,)),
    Column("tpot", ("tpot_s",), (INFERENCE,)),
    Column("output_tokens_per_s", ("output_tokens_per_s",), (INFERENCE,)),
    Column("training_tokens_per_s", ("tokens_per_s",), (TRAINING,)),
    Column("framework", ("framework",), (INFERENCE, TRAINING)),
    Column("sdk", ("sdk",), (INFERENCE, TRAINING)),
)


def _model_name(model_id: str) -> str:
    return html.escape(str(data.by_id("models", model_id)["name"]))


def measurements_table(env: Any, use: str | None = None) -> str:
    lang = page.lang(env)
    headers = _headers(["model", "instance"] + [c.header for c in MEASUREMENT_COLUMNS]
                       + ["use", "sources"], lang)
    rows = [[_model_name(rec["model"]), markdown.code(rec["instance"]),
             *_measurement_cells(rec, lang), _label(lang, "use", rec["use"]),
             source_links(env, rec["sources"])]
            for rec in data.records("measurements") if use is None or rec["use"] == use]
    return markdown.table(headers, rows)


def _measurement_cells(record: data.Record, lang: str) -> list[str]:
    """The measurement's columns; `framework` is the software stack as its source names it (a
    name, not prose), so it is marked as English text in every language."""
    cells = _cells(record, MEASUREMENT_COLUMNS, lang, default_kind=INFERENCE)
    where = [c.header for c in MEASUREMENT_COLUMNS].index("framework")
    if isinstance(record.get("framework"), str):
        cells[where] = f'<span class="nfg-name" lang="en">{cells[where]}</span>'
    return cells


def _error_cell(value: float | None, lang: str) -> str:
    if value is None:
        return data.labels(lang)["text"]["not_applicable"]
    return f'<span data-value="{value}">{formatting.percent(value, lang, 1)}</span>'


def calibration_table(env: Any) -> str:
    """Estimate vs published measurement for every calibration/validation row (calc.calibration)."""
    lang = page.lang(env)
    headers = _headers(["model", "instance", "kind", "tp", "batch", "input_len", "output_len",
                        "use",
                        "ttft_measured", "ttft_estimated", "ttft_error",
                        "tpot_measured", "tpot_estimated", "tpot_error"], lang)
    rows = []
    for row in compute.calibration_report():
        figures = []
        for name in ("ttft_s", "tpot_s"):
            figures += [values.computed_cell(row.get(f"{name}_measured"), name, lang),
                        values.computed_cell(row.get(f"{name}_estimated"), name, lang),
                        _error_cell(row.get(f"{name}_error"), lang)]
        rows.append([_model_name(row["model"]), markdown.code(row["instance"]),
                     _label(lang, "kind", row["kind"]),
                     *(html.escape(values.display(row[k], k, lang))
                       for k in ("tp", "batch", "input_len", "output_len")),
                     _label(lang, "use", row["use"]), *figures])
    return markdown.table(headers, rows)


def calibration_summary(env: Any, kind: str, use: str, field: str, stat: str = "median") -> str:
    """The median or max absolute relative error of calc's estimates (kind: neuron | gpu; use:
    calibration | validation; field: ttft_s | tpot_s | output_tokens_per_s), e.g. "12.3%"."""
    value = compute.calibration_error_summary(kind, use, field, stat)
    return formatting.percent(value, page.lang(env), 1)


def _compact(value: int, lang: str) -> str:
    text = format_compact_decimal(value, format_type="short", locale=lang, fraction_digits=2)
    return f'<span data-field="params" data-value="{value}">{text}</span>'


MODEL_COLUMNS = (
    Column("layers", ("layers",)),
    Column("hidden", ("hidden",)),
    Column("heads", ("heads",)),
    Column("kv_heads", ("kv_heads",)),
    Column("head_dim", ("head_dim",)),
    Column("intermediate", ("intermediate",)),
    Column("vocab", ("vocab",)),
    Column("experts", ("experts",)),
    Column("active_experts", ("active_experts",)),
    Column("max_position_embeddings", ("max_position_embeddings",)),
)


def models_table(env: Any) -> str:
    lang = page.lang(env)
    headers = _headers(["model", "architecture", "params", "active_params"]
                       + [c.header for c in MODEL_COLUMNS] + ["sources"], lang)
    rows = [[html.escape(rec["name"]), _label(lang, "architecture", rec["architecture"]),
             _compact(rec["params"], lang), _compact(rec["active_params"], lang),
             *_cells(rec, MODEL_COLUMNS, lang), source_links(env, rec["sources"])]
            for rec in data.records("models")]
    return markdown.table(headers, rows)


def glossary_table(env: Any) -> str:
    lang = page.lang(env)
    headers = _headers(["abbr", "definition"], lang)
    rows = [[f'<span id="term-{rec["id"]}">{html.escape(rec["abbr"])}</span>',
             html.escape(rec[lang])]
            for rec in sorted(data.records("glossary"), key=lambda r: str(r["abbr"]).lower())]
    return markdown.table(headers, rows)


def sources_table(env: Any) -> str:
    lang = page.lang(env)
    headers = _headers(["source_id", "title", "publisher", "source_kind", "as_of", "accessed"],
                       lang)
    rows = [[f'<span id="{rec["id"]}">{markdown.code(rec["id"])}</span>',
             markdown.html_link(str(rec["title"]), rec["url"], "nfg-source-title",
                                "" if lang == "en" else "en"),  # titles stay as published
             values.data_string(rec, "publisher", lang), _label(lang, "source_kind", rec["kind"]),
             html.escape(values.display(rec["as_of"], "as_of", lang)),
             html.escape(values.display(rec["accessed"], "accessed", lang))]
            for rec in sorted(data.records("sources"), key=lambda r: str(r["id"]))]
    return markdown.table(headers, rows)


def claims_table(env: Any) -> str:
    from .facts import fact  # the correct figure is rendered like any other fact

    lang = page.lang(env)
    headers = _headers(["seed", "quote", "topic", "verdict", "correct", "explanation",
                        "sources"], lang)
    rows = []
    for rec in data.records("claims"):
        correct = rec.get("correct")
        shown = (fact(env, correct["kind"], correct["id"], correct["field"]) if correct
                 else data.labels(lang)["text"]["not_applicable"])
        topic = values.data_string(rec, "topic", lang)  # calc.display.data_text
        quote = f'<q lang="en">{html.escape(rec["quote"])}</q>'  # the seed's words, as written
        rows.append([_label(lang, "seed", rec["seed"]), quote,
                     topic, _label(lang, "verdict", rec["verdict"]), shown,
                     html.escape(rec[f"explanation_{lang}"]), source_links(env, rec["sources"])])
    return markdown.table(headers, rows)


def register(env: Any) -> None:
    """Register the table macros; each reads the page language from env and returns a marker
    for its HTML table (see markdown.stash)."""
    def block(render: Any) -> Any:
        return lambda *args, **kwargs: markdown.stash(env, render(env, *args, **kwargs))

    tables = {"chips_table": chips_table, "cores_table": cores_table,
              "instances_table": instances_table, "neuron_vs_gpu_table": neuron_vs_gpu_table,
              "prices_table": prices_table, "measurements_table": measurements_table,
              "calibration_table": calibration_table, "models_table": models_table,
              "glossary_table": glossary_table, "sources_table": sources_table,
              "claims_table": claims_table}
    for name, render in tables.items():
        env.macro(block(render), name)
    env.macro(families, "instance_families")
    env.macro(lambda kind, use, field, stat="median": calibration_summary(env, kind, use, field,
                                                                          stat),
              "calibration_summary")
