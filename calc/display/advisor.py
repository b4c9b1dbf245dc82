"""The advisor page (issue 11 item 3) as display text: the options table, the Pareto chart, a
link per option into the speed calculator, the serving snippet and the break-even note.

`extend(shown, lang)` adds `shown["advisor"]` to a `present()` result of the "advisor"
calculator (called by calc.display.presenter.present, so the build-time prerender and the worker
make the same text). Every number is text here; the page's JavaScript only moves strings:

    advisor = {
      "message": text | "",                      # nothing meets the targets / nothing fits
      "columns": [{"key", "label", "sortable"}],
      "rows": [{"id", "kind", "front": bool, "cells": {key: {"text", "value"}},
                "link": {"href" | None, "text"},  # None: no link (link_note says why)
                "snippet": {"summary", "text", "version", "notes"}}],
      "order": {column key: [row ids, ascending]},   # the ranking is the rows' own order
      "chart": {"title", "x_label", "y_label", "x_axis", "y_axis", "datasets", "height_px"}
               | None,                            # log axes; Neuron ▲ and GPU ● markers
      "api": {"text", "sources": [{"text", "href"}]} | None,
      "rejected": [text], "rejected_heading": text,
      "link_note": text | "",   # why some rows have no link (also one of shown["notes"])
    }

A rejected setup's reason is a sentence in the page language: the engine error's message as
presenter.error_message writes it (with the rejection's params), or the short [reason] text of
steps.toml for a key that is not an error (no_price, does_not_fit, misses_*): never a key.
A row's link carries every model field the advisor's request used, so the speed calculator
computes the same figures; a model given as a pasted config.json cannot travel in a link (the
page never writes a textarea into its address, and the custom fields cannot say everything a
config.json does: checkpoint precision, tied embeddings, maximum positions, MLA query rank), so
those rows have no link and the page says why.
"""

import math
import re
from collections import OrderedDict
from functools import lru_cache
from typing import Any
from urllib.parse import quote_plus

from .. import data
from . import calculators, numbers, strings, units

SPEED_CALCULATOR = "../performance/"     # from calculators/advisor/ (same language)
SOURCES_PAGE = "../../reference/sources/"
SHAPES = {"neuron": "triangle", "gpu": "circle"}
GLYPHS = {"neuron": "▲", "gpu": "●"}
CHART_HEIGHT_PX = 380
# the table's columns: (result field, shown only when); units from the field names
COLUMNS: tuple[tuple[str, str], ...] = (
    ("instance", "always"),
    ("instance_kind", "always"),
    ("tp_degree", "always"),
    ("batch", "always"),
    ("replicas", "always"),
    ("instance_count", "rate"),
    ("ttft_s", "always"),
    ("tpot_s", "always"),
    ("output_tokens_per_s", "always"),
    ("output_tokens_per_s_per_user", "always"),
    ("usd_per_hour", "always"),
    ("fleet_usd_per_hour", "rate"),
    ("usd_per_million_output_tokens", "always"),
    ("error_band", "always"),
    ("break_even_requests_per_s", "api"),
)
TEXT_COLUMNS = ("instance", "instance_kind", "error_band")
# the speed calculator's form fields an option's perf params fill (model fields as given):
# every field its inference request reads but the config.json textarea, which no link carries
SPEED_REQUEST = calculators.PERFORMANCE.mode("inference").requests[0]
LINK_FIELDS = tuple(name for name in SPEED_REQUEST.params if name != calculators.CONFIG_FIELD)
# the input an engine error of a rejection is about, for a message that names it ({field}, by
# its label): advise keeps the error's params, not its field
REASON_FIELDS = {"dtype_not_supported": "dtype", "framework_unsupported": "framework",
                 "no_inference_framework": "framework", "no_training_framework": "framework"}
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
# as the speed calculator's band text writes a range in each language (calculators.toml [trust]
# band: ja "〜"), and Japanese lists with "、"
RANGE_SEPARATOR = {"ja": "〜"}
PART_SEPARATOR = {"ja": "、"}


def ui(lang: str) -> dict[str, str]:
    return strings.ui(lang, "advisor")


def value_text(field: str, value: Any, lang: str) -> str:
    """A table cell: the same formatter as the calculators' outputs (the speed calculator shows
    the same text for the same figure)."""
    if value is None:
        return strings.ui(lang, "result")["none"]
    unit = "tokens/s" if field == "output_tokens_per_s_per_user" else units.result_unit(field)
    if field in ("tp_degree", "batch", "replicas", "instance_count"):
        unit = ""
    if isinstance(value, bool):
        return strings.ui(lang, "result")["fits_yes" if value else "fits_no"]
    if isinstance(value, int | float):
        return units.quantity(value, unit, lang)
    return str(value)


def _kind_label(kind: str, lang: str) -> str:
    return f"{GLYPHS.get(kind, '')} {strings.ui(lang, 'input')['instances_group_' + kind]}"


def band_text(band: Any, lang: str) -> str:
    """perf's error band ({field: [low, high] | None}) as 'TPOT 21–27 ms; …', or '—'."""
    if not isinstance(band, dict):
        return strings.ui(lang, "result")["none"]
    labels = ui(lang)
    parts = []
    for field in ("tpot_s", "output_tokens_per_s", "ttft_s"):
        interval = band.get(field)
        if not isinstance(interval, list | tuple) or len(interval) != 2:
            continue
        low, high = (value_text(field, v, lang) for v in interval)
        parts.append(f"{labels['band_' + field]} {low}{RANGE_SEPARATOR.get(lang, '–')}{high}")
    return (PART_SEPARATOR.get(lang, "; ").join(parts) if parts
            else strings.ui(lang, "result")["none"])


def uncarried(option: dict[str, Any]) -> list[str]:
    """The perf params of an option that a link to the speed calculator cannot carry (a pasted
    config.json; an input that page does not have): the link would open another setup."""
    params = option.get("perf_params") or {}
    return [name for name, value in params.items()
            if value is not None and name not in LINK_FIELDS]


def link_href(option: dict[str, Any]) -> str | None:
    """The speed calculator with this option's perf params (as the form's text: plain
    integers and ids, which every page language reads the same); None when a param cannot
    travel in a link (see `uncarried`)."""
    params = option.get("perf_params") or {}
    if uncarried(option):
        return None
    query: dict[str, str] = {"mode": "inference"}
    if "model" not in params:
        query["model"] = "custom"
    for name in LINK_FIELDS:
        value = params.get(name)
        if value is None:
            continue
        query[name] = units.raw_value(value) or ""
    return SPEED_CALCULATOR + "?" + "&".join(_query_pair(k, v) for k, v in query.items())


@lru_cache(maxsize=1024)  # every row repeats the model's fields; only a few differ per row
def _query_pair(name: str, value: str) -> str:
    """One name=value of a query string, encoded as urllib.parse.urlencode does."""
    return quote_plus(name) + "=" + quote_plus(value)


def pareto_front(points: list[tuple[float, float, str]]) -> set[str]:
    """Row ids not dominated: no other option is at least as fast per user (x) and at most as
    expensive per 1M output tokens (y), and strictly better in one of them."""
    front: set[str] = set()
    best_y = math.inf
    best_x = math.inf
    for x, y, row_id in sorted(points, key=lambda p: (-p[0], p[1])):
        if y < best_y or (y == best_y and x == best_x):  # ties: equally on the front
            front.add(row_id)
            best_y, best_x = y, x
    return front


def _decimals_for(value: float) -> int:
    return 0 if value >= 1 else min(8, math.ceil(-math.log10(value)))


def log_axis(values: list[float], lang: str, money: bool) -> dict[str, Any]:
    """A log axis over the values: decade bounds, ticks at 1, 2, 5 × 10^k when few decades."""
    low = math.floor(math.log10(min(values)))
    high = math.ceil(math.log10(max(values)))
    if high == low:
        high += 1
    steps = (1, 2, 5) if high - low <= 3 else (1,)
    ticks = []
    for power in range(low, high + 1):
        for step in steps:
            value = step * 10.0**power
            if value > 10.0**high * 1.0001:
                continue
            decimals = _decimals_for(value)
            text = (numbers.usd(value, lang, decimals) if money
                    else numbers.number(value, lang, decimals))
            ticks.append({"value": value, "text": text})
    return {"min": 10.0**low, "max": 10.0**high, "ticks": ticks}


def chart(result: dict[str, Any], rows: list[dict[str, Any]], lang: str
          ) -> dict[str, Any] | None:
    labels = ui(lang)
    plotted = [(option, row) for option, row in zip(result["options"], rows, strict=True)
               if option.get("output_tokens_per_s_per_user")
               and option.get("usd_per_million_output_tokens")]
    if not plotted:
        return None
    datasets = []
    for kind in ("neuron", "gpu"):
        points = [{"x": o["output_tokens_per_s_per_user"],
                   "y": o["usd_per_million_output_tokens"], "row": row["id"],
                   "text": _point_text(row, lang)} for o, row in plotted
                  if o["instance_kind"] == kind]
        if points:
            datasets.append({"key": kind, "label": _kind_label(kind, lang),
                             "shape": SHAPES[kind], "line": False, "points": points})
    front = sorted(((o, row) for o, row in plotted if row["front"]),
                   key=lambda pair: pair[0]["output_tokens_per_s_per_user"])
    datasets.append({"key": "front", "label": labels["front"], "shape": "rectRot", "line": True,
                     "points": [{"x": o["output_tokens_per_s_per_user"],
                                 "y": o["usd_per_million_output_tokens"], "row": row["id"],
                                 "text": labels["front"] + ": " + _point_text(row, lang)}
                                for o, row in front]})
    xs = [o["output_tokens_per_s_per_user"] for o, _ in plotted]
    ys = [o["usd_per_million_output_tokens"] for o, _ in plotted]
    return {"title": labels["chart_title"], "x_label": labels["chart_x"],
            "y_label": labels["chart_y"], "x_axis": log_axis(xs, lang, money=False),
            "y_axis": log_axis(ys, lang, money=True), "datasets": datasets,
            "height_px": CHART_HEIGHT_PX}


def _point_text(row: dict[str, Any], lang: str) -> str:
    """A point's tooltip from its row's cell texts (formatted once)."""
    cells = row["cells"]
    return ui(lang)["point"].format(
        instance=cells["instance"]["text"], tp=cells["tp_degree"]["text"],
        batch=cells["batch"]["text"], speed=cells["output_tokens_per_s_per_user"]["text"],
        cost=cells["usd_per_million_output_tokens"]["text"])


def snippet(result: dict[str, Any], option: dict[str, Any], lang: str) -> dict[str, Any]:
    """The serving command of one option with the framework / SDK version it needs: a command
    only for the framework the option was estimated with (a vllm serve line for NxD Inference's
    static-batching figures would start another server than the one whose numbers are shown),
    none beyond the model's maximum positions."""
    from ..snippets import snippet as serving_snippet

    params = option.get("perf_params") or {}
    model_id = str(params.get("model", "custom"))
    made = serving_snippet(
        model_id=model_id, instance_id=option["instance"],
        tp=option["tp_degree"], batch=option["batch"], input_len=result["input_len"],
        output_len=result["output_len"], dtype=str(option.get("dtype") or "bf16"),
        kv_dtype=params.get("kv_dtype"),  # as given (the command sets only a given one)
        framework=option.get("framework"),
        # the advise result's (a pasted config.json states its own maximum too)
        beyond_max_positions=result.get("beyond_max_positions"),
    ).as_dict()
    labels = ui(lang)
    notes = [reason_text(r, lang) for r in made["reasons"]]
    if not made["supported"] or made["text"] is None:
        return {"summary": labels["snippet_none"], "text": "", "version": "", "notes": notes}
    vllm = made.get("vllm_version") or made.get("framework_version") or ""
    if made.get("neuron_sdk"):  # vLLM + the NxD Inference plugin on Neuron
        version = labels["snippet_sdk"].format(vllm=vllm, plugin=made["framework_version"],
                                               sdk=made["neuron_sdk"])
    else:
        version = labels["snippet_gpu"].format(vllm=vllm)
    return {"summary": labels["snippet"], "text": made["text"], "version": version,
            "notes": notes}


def _api_missing_reason(found: dict[str, Any], lang: str) -> str:
    """Why the API price is not given, in `lang` (the record's `*_missing` text through
    calc.display.data_text: data/i18n/<lang>/data.toml), output price first like break_even."""
    from . import data_text

    for raw in data.records("api_prices"):
        if all(str(raw.get(k, "")) == str(found.get(k, "")) for k in
               ("model", "provider", "offer", "region", "as_of")):
            for field in ("usd_per_million_output_tokens", "usd_per_million_input_tokens"):
                reason = data_text.missing(raw, field, lang)[0]
                if reason:
                    return reason
    return str(found.get("missing_reason") or "")


def _api_note(result: dict[str, Any], lang: str) -> dict[str, Any] | None:
    found = result.get("api_price")
    if not found:
        return None
    labels = ui(lang)
    sources = []
    for source_id in found.get("sources") or []:
        record = data.record("sources", str(source_id))
        title = str(record.get("title", source_id)) if record else str(source_id)
        sources.append({"text": title, "href": f"{SOURCES_PAGE}#{source_id}"})
    if found.get("missing_reason") or result.get("api_usd_per_request") is None:
        text = labels["api_missing"].format(provider=found.get("provider", ""),
                                            reason=_api_missing_reason(found, lang))
    else:
        text = labels["api_price"].format(
            provider=found.get("provider", ""),
            offer=strings.choice_label("price_kind", str(found.get("offer", "")), lang),
            input=numbers.usd(found["usd_per_million_input_tokens"], lang, 2),
            output=numbers.usd(found["usd_per_million_output_tokens"], lang, 2),
            region=found.get("region", ""), as_of=found.get("as_of", ""))
    return {"text": text, "sources": sources}


def _message(result: dict[str, Any], lang: str) -> str:
    message = result.get("message")
    if not message:
        return ""
    labels = ui(lang)
    params = message.get("params") or {}
    if message["key"] == "targets_unreachable":
        return labels["unreachable"].format(
            ttft=value_text("ttft_s", params.get("best_ttft_s"), lang),
            tpot=value_text("tpot_s", params.get("best_tpot_s"), lang))
    key = str(message["key"])
    return strings.table(lang, "steps", "reason").get(key, key)


def reason_text(reason: dict[str, Any], lang: str) -> str:
    """Why a setup is not offered, as a sentence in `lang`: the engine error's message
    (presenter.error_message, the rejection's params in it, numbers and labels in `lang`), else
    the key's short text of steps.toml [reason] (filled the same way); a template whose
    placeholders the rejection cannot fill is not used, and then a plain sentence says that the
    setup cannot run (never the key, never a placeholder)."""
    from .presenter import error_message

    key = str(reason.get("key"))
    params = {k: v for k, v in (reason.get("params") or {}).items() if k != "field"}
    field = REASON_FIELDS.get(key)
    known = {*params, *(("field",) if field else ())}
    if "with_field" in params:   # needs_field / not_with_field: the other field fills {value}
        known.add("value")
    error = {"field": field, "key": key, "params": params}
    engine = (strings.table(lang, "errors", "error").get(key)
              or strings.ui(lang, "trust_error").get(key))
    if engine and set(_PLACEHOLDER.findall(engine)) <= known:
        return error_message(error, lang)
    short = strings.table(lang, "steps", "reason").get(key)
    if short and set(_PLACEHOLDER.findall(short)) <= known:
        # a template of no error table: error_message takes it as the error's own message
        return error_message({**error, "key": None, "message": short}, lang)
    return ui(lang)["rejected_other"]


def _rejected(result: dict[str, Any], lang: str) -> list[str]:
    labels = ui(lang)
    out = []
    for entry in result["rejected"]:
        why = reason_text(entry["reason"], lang)
        where = entry["instance"] if entry.get("tp_degree") is None else labels[
            "rejected_tp"].format(instance=entry["instance"], tp=entry["tp_degree"])
        out.append(f"{where}: {why}")
    return out


def link_note(result: dict[str, Any], lang: str) -> str:
    """Why some rows have no link into the speed calculator ("" when every row has one)."""
    missing: dict[str, None] = {}
    for option in result["options"]:
        missing.update(dict.fromkeys(uncarried(option)))
    if not missing:
        return ""
    if calculators.CONFIG_FIELD in missing:
        return ui(lang)["no_link_config"]
    labels = strings.field_labels(lang)
    names = ("、" if lang == "ja" else ", ").join(labels.get(name, name) for name in missing)
    return ui(lang)["no_link_fields"].format(names=names)


def table(result: dict[str, Any], lang: str) -> dict[str, Any]:
    shown = {"always": True, "rate": result.get("requests_per_s") is not None,
             "api": result.get("api_usd_per_request") is not None}
    labels = {**strings.result_labels(lang), **{k[len("col_"):]: v for k, v in ui(lang).items()
                                                if k.startswith("col_")}}
    columns: list[dict[str, Any]] = [{"key": key, "label": labels.get(key, key),
                                      "sortable": True} for key, when in COLUMNS if shown[when]]
    options = result["options"]
    row_ids = [f"r{i}" for i in range(len(options))]
    front = pareto_front([(o["output_tokens_per_s_per_user"], o["usd_per_million_output_tokens"],
                           row_id) for o, row_id in zip(options, row_ids, strict=True)
                          if o.get("usd_per_million_output_tokens") is not None])
    keys = tuple(str(column["key"]) for column in columns)
    rows = []
    for option, row_id in zip(options, row_ids, strict=True):
        cells, link, made = _row_text(result, option, keys, lang)
        rows.append({"id": row_id, "kind": option["instance_kind"], "front": row_id in front,
                     "front_text": ui(lang)["front_mark"] if row_id in front else "",
                     "cells": cells, "link": link, "snippet": made})
    order: dict[str, list[str]] = {}
    for column in columns:
        key = str(column["key"])

        def sort_key(pair: tuple[dict[str, Any], str], name: str = key) -> tuple[Any, ...]:
            value = pair[0].get(name)
            if name == "error_band":
                value = _band_width(value)
            if value is None:
                return (1, 0, "")
            if isinstance(value, str):
                return (0, 0, value)
            return (0, float(value), "")

        order[key] = [row_id for _, row_id in sorted(zip(options, row_ids, strict=True),
                                                      key=sort_key)]
    return {"message": _message(result, lang), "columns": columns, "rows": rows,
            "order": order, "chart": chart(result, rows, lang),
            "api": _api_note(result, lang), "rejected": _rejected(result, lang),
            "link_note": link_note(result, lang),
            "rejected_heading": ui(lang)["rejected"].format(
                count=numbers.number(len(result["rejected"]), lang, 0)),
            "count_text": ui(lang)["count_one"] if len(options) == 1 else ui(lang)["count"].format(
                count=numbers.number(len(options), lang, 0)),
            "ranked_text": ui(lang).get(f"ranked_{result.get('ranked_by')}", ""),
            "sort_hint": ui(lang)["sort_hint"], "caption": ui(lang)["table_caption"],
            "link_label": ui(lang)["col_link"], "snippet_label": ui(lang)["col_snippet"],
            "needs_label": ui(lang)["snippet_needs"]}


# A row's text is a pure function of its option, the columns and the workload: the page asks
# again at every input change and a new target, rate or family keeps most options, so their
# text is kept (least recently used out; forgotten with the data, whose strings it holds).
ROWS_KEPT = 2048
_ROWS: "OrderedDict[tuple[Any, ...], RowText]" = OrderedDict()
type RowText = tuple[dict[str, dict[str, Any]], dict[str, str | None], dict[str, Any]]


def _frozen(value: Any) -> Any:
    """A hashable copy of a JSON-like value (dicts as sorted item tuples)."""
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value


def _row_text(result: dict[str, Any], option: dict[str, Any], keys: tuple[str, ...],
              lang: str) -> RowText:
    """(cells, link, snippet) of one option; the same objects for an equal option (read-only)."""
    memo_key = (lang, keys, result["input_len"], result["output_len"], _frozen(option))
    kept = _ROWS.get(memo_key)
    if kept is not None:
        _ROWS.move_to_end(memo_key)
        return kept
    cells: dict[str, dict[str, Any]] = {}
    for key in keys:
        value = option.get(key)
        if key == "instance_kind":
            cells[key] = {"text": _kind_label(str(value), lang), "value": str(value)}
        elif key == "error_band":
            cells[key] = {"text": band_text(value, lang), "value": None}
        else:
            cells[key] = {"text": value_text(key, value, lang), "value": units.raw_value(value)}
    href = link_href(option)
    made = (cells, {"href": href, "text": ui(lang)["open_speed" if href else "no_link"]},
            snippet(result, option, lang))
    _ROWS[memo_key] = made
    if len(_ROWS) > ROWS_KEPT:
        _ROWS.popitem(last=False)
    return made


data.on_reset(_ROWS.clear)


def _band_width(band: Any) -> float | None:
    """Sort key of an error band: the relative width of the TPOT band (None when absent)."""
    if not isinstance(band, dict):
        return None
    interval = band.get("tpot_s")
    if not isinstance(interval, list | tuple) or len(interval) != 2 or not interval[0]:
        return None
    return float(interval[1]) / float(interval[0])


def extend(shown: dict[str, Any], lang: str) -> None:
    """Add the advisor's table, chart, links and snippets to a present() result."""
    response = (shown.get("responses") or {}).get("main") or {}
    shown["advisor"] = table(response["result"], lang) if response.get("ok") else None
    note = (shown["advisor"] or {}).get("link_note")
    if note:   # under the form with the page's other notes (the rows' link cells name it)
        shown["notes"] = [*shown.get("notes", []), {"key": "advisor_no_link", "text": note}]
