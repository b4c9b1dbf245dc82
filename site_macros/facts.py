"""fact(), cite() and the calc result macros: memory(), perf(), train(), price()."""

from __future__ import annotations

from typing import Any

from . import compute, data, markdown, page, provenance, values

# fact() kind → data file name
KIND_FILES = {"chip": "chips", "core": "cores", "instance": "instances", "model": "models",
              "measurement": "measurements", "assumption": "assumptions", "framework": "frameworks"}


class UnknownFactError(KeyError):
    """A page asked for a fact kind or field the data does not have."""


def _price_record(instance_id: str, region: str) -> data.Record:
    rec = data.price_record(instance_id, region, "on-demand")  # calc's rule: the newest
    if rec is None:
        raise UnknownFactError(f"no on-demand price record for {instance_id} in {region}")
    return rec


def fact(env: Any, kind: str, record_id: str, field: str, region: str = "us-east-1") -> str:
    """One figure with its unit in the page language, or "not published" plus the reason."""
    lang = page.lang(env)
    if kind == "price":
        record = _price_record(record_id, region)
    elif kind in KIND_FILES:
        record = data.by_id(KIND_FILES[kind], record_id)
    else:
        raise UnknownFactError(f"fact kind {kind!r} is not one of {sorted(KIND_FILES)} or price")
    if kind == "assumption" and field == "value":
        return values.assumption_value(record["value"], str(record.get("unit", "")), lang)
    value = data.field(record, field)
    if value is None:
        if data.missing_reason(record, field):
            return values.missing(record, field, lang)
        head = field.partition(".")[0]
        if "." in field and isinstance(record.get(head), dict):
            # a dtype absent from a per-dtype table without a reason: not supported
            return str(data.labels(lang)["text"]["not_applicable"])
        raise UnknownFactError(f"{kind} {record_id} has no field {field!r} and no reason")
    if isinstance(value, str) and not data.labels(lang).get("value", {}).get(value):
        # a data text in the page language (`<field>_ja`, `<field>_es`; calc.display.data_text)
        return provenance.decorate(record, field, values.data_string(record, field, lang), lang)
    return provenance.decorate(record, field, values.display(value, field, lang), lang)


def cite(env: Any, source_id: str) -> str:
    """A link to the source's entry on the sources page, relative to the current page."""
    data.by_id("sources", source_id)  # an unknown id stops the build
    target = page.link_to(env, "reference/sources.md")
    return markdown.link(f"[{source_id}]", f"{target}#{source_id}")


def register(env: Any) -> None:
    env.macro(lambda kind, id, field, region="us-east-1": fact(env, kind, id, field, region),
              "fact")
    env.macro(lambda source_id: cite(env, source_id), "cite")
    for kind in ("memory", "perf", "train", "train_memory", "price", "compare"):
        env.macro(lambda _kind=kind, **params: compute.run(_kind, **params), kind)
