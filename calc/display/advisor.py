"""The advisor page (issue 11 item 3) as display text: the options table, the Pareto chart, a
link per option into the speed calculator, the serving snippet and the break-even note.

`extend(shown, lang)` adds `shown["advisor"]` to a `present()` result of the "advisor"
calculator (called by calc.display.presenter.present, so the build-time prerender and the worker
make the same text). Every number is text here; the page's JavaScript only moves strings:

    advisor = {
      "message": text | "",                      # nothing meets the targets / nothing fits
      "columns": [{"key", "label", "sortable"}],
      "rows": [{"id", "kind", "front": bool, "cells": {key: {"text", "value"}},
                "link": {"href", "text"}, "snippet": {"summary", "text", "version", "notes"}}],
      "order": {column key: [row ids, ascending]},   # the ranking is the rows' own order
      "chart": {"title", "x_label", "y_label", "x_axis", "y_axis", "datasets", "height_px"}
               | None,                            # log axes; Neuron ▲ and GPU ● markers
      "api": {"text", "sources": [{"text", "href"}]} | None,
      "rejected": [text], "rejected_heading": text,
    }
"""

import math
from collections import OrderedDict
from functools import lru_cache
from typing import Any
from urllib.parse import quote_plus

from .. import data
from . import numbers, strings, units

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
# the perf calculator's form fields an option's perf params fill (model fields as given)
LINK_FIELDS = ("model", "params", "layers", "hidden", "heads", "kv_heads", "head_dim",
               "intermediate", "vocab", "instance", "dtype", "batch", "input_len", "output_len",
               "tp", "region", "price_kind")


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
        parts.append(f"{labels['band_' + field]} {low}–{high}")
    return "; ".join(parts) if parts else strings.ui(lang, "result")["none"]


def link_href(option: dict[str, Any]) -> str:
    """The speed calculator with this option's perf params (as the form's text: plain
    integers and ids, which every page language reads the same)."""
    params = option.get("perf_params") or {}
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
    """The serving command of one option with the framework / SDK version it needs."""
    from ..snippets import snippet as serving_snippet

    params = option.get("perf_params") or {}
    made = serving_snippet(
        model_id=str(params.get("model", "custom")), instance_id=option["instance"],
        tp=option["tp_degree"], batch=option["batch"], input_len=result["input_len"],
        output_len=result["output_len"], dtype=str(option.get("dtype") or "bf16"),
        kv_dtype=params.get("kv_dtype"),  # as given (the command sets only a given one)
    ).as_dict()
    labels = ui(lang)
    reasons = strings.table(lang, "steps", "reason")
    notes = [reasons.get(str(r["key"]), str(r["key"])) for r in made["reasons"]]
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
                                            reason=found.get("missing_reason") or "")
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


def _rejected(result: dict[str, Any], lang: str) -> list[str]:
    reasons = strings.table(lang, "steps", "reason")
    errors = strings.table(lang, "errors", "error")
    labels = ui(lang)
    out = []
    for entry in result["rejected"]:
        key = str(entry["reason"]["key"])
        why = reasons.get(key) or errors.get(key, key).split("{")[0].strip(" :") or key
        where = entry["instance"] if entry.get("tp_degree") is None else labels[
            "rejected_tp"].format(instance=entry["instance"], tp=entry["tp_degree"])
        out.append(f"{where}: {why}")
    return out


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
            "rejected_heading": ui(lang)["rejected"].format(
                count=numbers.number(len(result["rejected"]), lang, 0)),
            "count_text": ui(lang)["count"].format(count=numbers.number(len(options), lang, 0)),
            "ranked_text": ui(lang).get(f"ranked_{result.get('ranked_by')}", ""),
            "sort_hint": ui(lang)["sort_hint"], "caption": ui(lang)["table_caption"],
            "link_label": ui(lang)["col_link"], "snippet_label": ui(lang)["col_snippet"],
            "needs_label": ui(lang)["snippet_needs"]}


# A row's text is a pure function of its option, the columns and the workload: the page asks
# again at every input change and a new target, rate or family keeps most options, so their
# text is kept (least recently used out; forgotten with the data, whose strings it holds).
ROWS_KEPT = 2048
_ROWS: "OrderedDict[tuple[Any, ...], RowText]" = OrderedDict()
type RowText = tuple[dict[str, dict[str, Any]], dict[str, str], dict[str, Any]]


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
    made = (cells, {"href": link_href(option), "text": ui(lang)["open_speed"]},
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
