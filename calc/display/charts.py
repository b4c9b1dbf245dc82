"""Chart data with every label and tick text made here: Chart.js only draws (no JS formats)."""

import math
from typing import Any

from . import numbers, strings, units

GIB = 2**30
ROW_PX = 28
PADDING_PX = 90
MIN_HEIGHT_PX = 180


def height_px(rows: int) -> int:
    """Height reserved for a horizontal bar chart: no layout shift when it is drawn."""
    return max(MIN_HEIGHT_PX, rows * ROW_PX + PADDING_PX)


def _nice_step(top: float) -> float:
    raw = top / 5 if top > 0 else 1
    power = 10 ** math.floor(math.log10(raw))
    return float(next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw))


def axis(top: float, unit_label: str, lang: str) -> dict[str, Any]:
    """A value axis from 0 with about five ticks, each tick's text in the language."""
    step = _nice_step(top)
    count = max(1, math.ceil(top / step - 1e-9))
    decimals = 0 if float(step).is_integer() else 2
    ticks = [{"value": round(i * step, 6),
              "text": units.join(numbers.number(i * step, lang, decimals), unit_label)}
             for i in range(count + 1)]
    return {"max": ticks[-1]["value"], "ticks": ticks}


def _series(label: str, color: str, values: list[float | None], unit_label: str,
            lang: str) -> dict[str, Any]:
    return {"label": label, "color": color, "data": values,
            "texts": [f"{label}: " + (units.join(numbers.number(v, lang, 2), unit_label)
                                      if v is not None else "—") for v in values]}


def _gib(value: Any) -> float | None:
    return value / GIB if isinstance(value, int | float) and not isinstance(value, bool) else None


def _bars(kind: str, categories: list[str], series: list[dict[str, Any]], unit_label: str,
          lang: str, stacked: bool) -> dict[str, Any]:
    if stacked:
        totals = [sum(s["data"][i] or 0 for s in series) for i in range(len(categories))]
    else:
        totals = [v or 0 for s in series for v in s["data"]]
    return {"kind": kind, "categories": categories, "datasets": series, "stacked": stacked,
            "axis": axis(max(totals, default=0), unit_label, lang),
            "height_px": height_px(len(categories))}


def chart(kind: str | None, responses: dict[str, Any], lang: str,
          instance_kinds: dict[str, str]) -> dict[str, Any] | None:
    """The chart of a mode (memory-breakdown | training-breakdown | price-compare) or None."""
    text = strings.ui(lang, "result")
    gib_label = units.labels(lang)["gib"]
    main = responses.get("main", {})
    if kind == "memory-breakdown" and main.get("ok"):
        r = main["result"]
        free_core = max(0, r["capacity_per_core_bytes"] - r["per_core_bytes"])
        free_instance = max(0, (r.get("capacity_per_instance_bytes") or 0) - r["total_bytes"])
        rows = (("chart_weights", "weights", "weights_per_core_bytes", "weights_bytes"),
                ("chart_kv_cache", "kv", "kv_cache_per_core_bytes", "kv_cache_bytes"),
                ("chart_activations", "activations", "activation_per_core_bytes",
                 "activation_bytes"),
                ("chart_overhead", "overhead", "overhead_per_core_bytes", "overhead_bytes"))
        series = [_series(text[key], color, [_gib(r.get(core)), _gib(r.get(total))], gib_label,
                          lang) for key, color, core, total in rows]
        series.append(_series(text["chart_free"], "free", [_gib(free_core), _gib(free_instance)],
                              gib_label, lang))
        return _bars(kind, [text["chart_per_core"], text["chart_per_instance"]], series,
                     gib_label, lang, stacked=True)
    if kind == "training-breakdown" and main.get("ok"):
        r = main["result"]
        free = max(0, r["capacity_per_device_bytes"] - r["per_device_bytes"])
        rows2 = (("chart_weights", "weights", "weights_bytes"),
                 ("chart_grads", "grads", "grads_bytes"),
                 ("chart_master", "master", "master_bytes"),
                 ("chart_optimizer", "optimizer", "optimizer_bytes"),
                 ("chart_activations", "activations", "activation_bytes"),
                 ("chart_overhead", "overhead", "overhead_bytes"))
        series = [_series(text[key], color, [_gib(r.get(field))], gib_label, lang)
                  for key, color, field in rows2]
        series.append(_series(text["chart_free"], "free", [_gib(free)], gib_label, lang))
        return _bars(kind, [text["chart_per_device"]], series, gib_label, lang, stacked=True)
    compare = responses.get("compare", {})
    if kind == "price-compare" and compare.get("ok"):
        priced = [row for row in compare["result"]["rows"]
                  if isinstance(row.get("usd_per_hour"), int | float)]
        per_hour = units.labels(lang)["per_hour"]
        values = [float(row["usd_per_hour"]) for row in priced]
        data = {"label": text["chart_usd_per_hour"], "data": values,
                "colors": [instance_kinds.get(str(row["instance"]), "neuron") for row in priced],
                "texts": [units.usd_text(v, lang) + per_hour for v in values]}
        result = _bars(kind, [str(row["instance"]) for row in priced], [data], "", lang,
                       stacked=False)
        result["axis"] = {**result["axis"], "ticks": [
            {"value": t["value"], "text": numbers.usd(t["value"], lang, 0)}
            for t in result["axis"]["ticks"]]}
        return result
    return None
