"""A published measurement next to a calculator's estimate for the same configuration (build time:
the reference table under a calculator). Text comes from calc.display, like every figure."""

from __future__ import annotations

from typing import Any

from calc.display import calculators, numbers, presenter

from . import data

FIELDS = ("ttft_s", "tpot_s", "output_tokens_per_s")


def reference(calc_spec: calculators.Calculator, lang: str) -> dict[str, Any] | None:
    """The first reference measurement the engine can estimate, with rows of display text."""
    import calc.api

    for measurement_id in calc_spec.reference_measurements:
        try:
            m = data.by_id("measurements", measurement_id)
        except KeyError:
            continue
        params = {k: m[k] for k in ("model", "instance", "tp", "batch", "input_len",
                                     "output_len", "dtype") if k in m}
        estimate = calc.api.run({"schema_version": 1, "kind": "perf", "params": params})
        if estimate.get("ok"):
            break
    else:
        return None
    rows = []
    for key in FIELDS:
        if key not in m:
            continue
        unit = "tokens/s" if key.endswith("per_s") else "s"
        est = estimate["result"].get(key)
        error = (est - m[key]) / m[key] if isinstance(est, int | float) and m[key] else None
        rows.append({
            "field": key,
            "measured": presenter.value_text(m[key], unit, lang),
            "estimated": presenter.value_text(est, unit, lang),
            "error": numbers.percent(error, lang, 1) if error is not None else "—",
        })
    sources = {src["id"]: src for src in compute_sources()}
    cited = [{"title": str(sources[sid].get("title", sid)), "url": str(sources[sid].get("url", ""))}
             for sid in m.get("sources", []) if sid in sources]
    return {"measurement": m, "rows": rows, "sources": cited}


def compute_sources() -> list[data.Record]:
    return data.records("sources")


