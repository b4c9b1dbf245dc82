"""Jinja filters for calc results in the page language: {{ r.total_bytes | gib }}."""

from __future__ import annotations

from typing import Any

import calc.data

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
    # Words for calc's booleans and keys in the page language (site.toml [text], steps.toml)
    def text(key: str) -> str:
        return data.labels(lang())["text"][key]

    def steps(section: str, key: str) -> str:
        return str(calc.data.i18n(lang(), "steps")[section][key])

    filters |= {
        "yesno": lambda flag: text("yes" if flag else "no"),
        "fitverdict": lambda fits: text("fits" if fits else "does_not_fit"),
        "padded": lambda padded: text("padded_heads") if padded else "",
        "bound": lambda key: steps("bound", key),
        "kv_rule": lambda key: steps("kv_rule", key),
    }
    for name, function in filters.items():
        env.filter(function, name)
