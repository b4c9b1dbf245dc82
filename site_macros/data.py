"""Read-only access to the project data through calc (ARCHITECTURE.md §2), indexed by id."""

from __future__ import annotations

from functools import cache
from typing import Any

import calc.data

Record = dict[str, Any]


def records(name: str) -> list[Record]:
    """All records of one data file (chips, cores, instances, prices, models, ...)."""
    return list(calc.data.records(name))


@cache
def _index(name: str) -> dict[str, Record]:
    return {str(rec["id"]): rec for rec in calc.data.records(name)}


def by_id(name: str, record_id: str) -> Record:
    """One record by id; an unknown id ends the build with a clear message."""
    try:
        return _index(name)[record_id]
    except KeyError:
        raise KeyError(f"no {name} record with id {record_id!r}") from None


def labels(lang: str) -> dict[str, dict[str, str]]:
    """The site labels of one language (data/i18n/<lang>/site.toml)."""
    return calc.data.i18n(lang, "site")


def reasons(lang: str) -> dict[str, str]:
    """calc's reason-key labels (data/i18n/<lang>/steps.toml [reason], owned by calc)."""
    return dict(calc.data.i18n(lang, "steps").get("reason", {}))


def field(record: Record, path: str) -> Any:
    """A possibly dotted field (`dense_tflops.bf16`); None when absent."""
    value: Any = record
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def missing_reason(record: Record, path: str) -> str:
    """The reason a field is not published: `<field>_missing`, or for a per-dtype table
    (`dense_tflops.bf16`) the entry of `<table>_missing = {dtype = reason}`; '' if none given."""
    head, _, key = path.partition(".")
    reason = record.get(f"{head}_missing")
    if isinstance(reason, dict):
        return str(reason.get(key, ""))
    return str(reason or "")


def price_record(instance_id: str, region: str, kind: str = "on-demand") -> Record | None:
    """The price record calc uses (calc.data.price: the newest matching one), or None."""
    chosen = calc.data.price(instance_id, region, kind)
    if chosen is None:
        return None
    for rec in calc.data.records("prices"):
        if ((rec.get("instance"), rec.get("region"), rec.get("kind", "on-demand"),
             str(rec.get("as_of", ""))) == (instance_id, region, kind, chosen.as_of)):
            return rec
    return None
