"""How old the data behind each record is (issue 13, item 5).

A record's as-of date is its own `as_of` (prices) or else the newest `as_of` of the sources it
cites: the date of the most recent content that supports it. A record is stale when that date is
more than `max_age_days` before the day of the build. Glossary terms are definitions without
figures or sources and are not dated.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from . import data

# The data files whose records carry figures, and the field that names a record
DATED_FILES: tuple[tuple[str, str], ...] = (
    ("chips", "id"),
    ("cores", "id"),
    ("instances", "id"),
    ("prices", "instance"),
    ("models", "id"),
    ("measurements", "id"),
    ("assumptions", "id"),
    ("claims", "id"),
)
MAX_AGE_DAYS = 365


@dataclass(frozen=True, slots=True)
class DatedRecord:
    file: str                     # data file name (chips, prices, ...)
    record_id: str                # id, or for prices "<instance> <region> <kind>"
    as_of: datetime.date | None   # None: neither an as_of nor a dated source
    sources: tuple[str, ...]


def _source_dates() -> dict[str, datetime.date]:
    dates: dict[str, datetime.date] = {}
    for source in data.records("sources"):
        as_of = source.get("as_of")
        if isinstance(as_of, datetime.date):
            dates[str(source["id"])] = as_of
    return dates


def record_as_of(record: dict[str, Any],
                 source_dates: dict[str, datetime.date]) -> datetime.date | None:
    """The record's own as_of, else the newest as_of of its cited sources (None if neither)."""
    own = record.get("as_of")
    if isinstance(own, datetime.date):
        return own
    cited = [source_dates[sid] for sid in record.get("sources", []) if sid in source_dates]
    return max(cited) if cited else None


def _name(file: str, record: dict[str, Any], id_field: str) -> str:
    if file == "prices":
        return f"{record['instance']} {record['region']} {record.get('kind', 'on-demand')}"
    return str(record.get(id_field, ""))


def dated_records() -> list[DatedRecord]:
    """Every record of DATED_FILES with its as-of date."""
    source_dates = _source_dates()
    out: list[DatedRecord] = []
    for file, id_field in DATED_FILES:
        for record in data.records(file):
            out.append(DatedRecord(file, _name(file, record, id_field),
                                   record_as_of(record, source_dates),
                                   tuple(str(s) for s in record.get("sources", []))))
    return out


def stale_records(today: datetime.date,
                  max_age_days: int = MAX_AGE_DAYS) -> list[DatedRecord]:
    """Records whose as-of date is more than max_age_days before `today` (undated ones too),
    oldest first."""
    limit = today - datetime.timedelta(days=max_age_days)
    stale = [rec for rec in dated_records() if rec.as_of is None or rec.as_of < limit]
    return sorted(stale, key=lambda rec: (rec.as_of or datetime.date.min, rec.file,
                                          rec.record_id))
