"""Jinja filters for calc results in the page language: {{ r.total_bytes | gib }}."""

from __future__ import annotations

from typing import Any

from . import data, formatting, page

BYTES_PER_GIB = 2**30
BYTES_PER_GB = 10**9


def register(env: Any) -> None:
    def lang() -> str:
        return page.lang(env)

    def unit(key: str) -> str:
        return "\u00a0" + data.labels(lang())["unit"][key]

    # Unit conversions of byte counts are display scaling, the same as calc.units uses
    filters = {
        "gib": lambda b, d=None: formatting.number(b / BYTES_PER_GIB, lang(), d) + unit("gib"),
        "gb": lambda b, d=None: formatting.number(b / BYTES_PER_GB, lang(), d) + unit("gb"),
        "num": lambda v, d=None: formatting.number(v, lang(), d),
        "usd": lambda v, d=2: formatting.usd(v, lang(), d),
        "pct": lambda v, d=1: formatting.percent(v, lang(), d),
        "seconds": lambda v, d=None: formatting.number(v, lang(), d) + unit("s"),
        "ms": lambda v, d=None: formatting.number(v * 1000, lang(), d) + unit("ms"),
        "tflops": lambda v, d=None: formatting.number(v, lang(), d) + unit("tflops"),
        "date": lambda v: formatting.date(v, lang()),
    }
    for name, function in filters.items():
        env.filter(function, name)
