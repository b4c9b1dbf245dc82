"""The calibration table and the predicted-vs-measured chart of the how-it-works page.

Everything shown comes from data/calibration.toml, written by bench/calibrate.py (through
calc.serving_band); this module only formats: labels from data/i18n/<lang>/calibration.toml,
numbers through site_macros.formatting, an inline SVG (log-log axes) per phase.
"""

from __future__ import annotations

import html
import math
from typing import Any

import calc.data
import calc.serving_band

from . import formatting, markdown, page

PHASES = ("decode", "prefill", "throughput", "training")
SIZE, PAD = 260, 34
COLOURS = {"neuron": "#e07b00", "gpu": "#3b6fb6"}
GPU_PREFIX = "nvidia-"


def _labels(lang: str) -> dict[str, dict[str, str]]:
    return calc.data.i18n(lang, "calibration")


def families_table(env: Any) -> str:
    lang = page.lang(env)
    labels = _labels(lang)
    head = labels["header"]
    headers = [head[key] for key in ("hardware", "framework", "phase", "n", "sources", "median",
                                     "p90", "coverage", "median_by_load", "status")]
    rows = []
    for row in calc.serving_band.stored_families():
        coverage = row.get("coverage")
        status = str(row["status"])
        rows.append([
            markdown.code(str(row["hardware"])), markdown.code(str(row["framework"])),
            html.escape(labels["phase"].get(str(row["phase"]), str(row["phase"]))),
            str(row["n"]), str(row["sources"]),
            formatting.percent(float(row["median_abs_error"]), lang, 1),
            formatting.percent(float(row["p90_abs_error"]), lang, 1),
            "–" if coverage is None else formatting.percent(float(coverage), lang, 0),
            _by_load(row, lang),
            f'<span class="nfg-status nfg-status--{html.escape(status)}" data-status='
            f'"{html.escape(status)}">{html.escape(labels["status"][status])}</span>',
        ])
    return markdown.table(headers, rows)


def _by_load(row: dict[str, Any], lang: str) -> str:
    """"4.6 % (8) / 30.7 % (12)": median |error| of the rows that show one step alone and of the
    rows under load (calc.serving_band.LOADS), "–" for a load without rows or for training."""
    parts = []
    for load in calc.serving_band.LOADS:
        median = row.get(calc.serving_band.load_field("median_abs_error", load))
        count = row.get(calc.serving_band.load_field("n", load))
        parts.append("–" if median is None or count is None
                     else f"{formatting.percent(float(median), lang, 1)} ({int(count)})")
    return "–" if all(part == "–" for part in parts) else " / ".join(parts)


def _svg(phase: str, points: list[dict[str, Any]], lang: str) -> str:
    labels = _labels(lang)
    values = [float(p[k]) for p in points for k in ("estimated", "measured")]
    low = math.floor(math.log10(min(values)))
    high = math.ceil(math.log10(max(values)))
    high = max(high, low + 1)
    span = SIZE - 2 * PAD

    def at(value: float) -> float:
        return (math.log10(value) - low) / (high - low) * span

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {SIZE} {SIZE}" '
             f'width="{SIZE}" height="{SIZE}" role="img" class="nfg-calibration-chart" '
             f'data-phase="{phase}" aria-label="{html.escape(labels["phase"][phase])}">',
             f'<title>{html.escape(labels["phase"][phase])}</title>',
             f'<rect x="{PAD}" y="{PAD}" width="{span}" height="{span}" fill="none" '
             f'stroke="#999" stroke-width="0.5"/>']
    for decade in range(low, high + 1):
        offset = at(10.0**decade)
        parts.append(f'<line x1="{PAD + offset:.1f}" y1="{PAD}" x2="{PAD + offset:.1f}" '
                     f'y2="{PAD + span}" stroke="#ddd" stroke-width="0.5"/>')
        parts.append(f'<line x1="{PAD}" y1="{PAD + span - offset:.1f}" x2="{PAD + span}" '
                     f'y2="{PAD + span - offset:.1f}" stroke="#ddd" stroke-width="0.5"/>')
        tick = f"1e{decade}"
        parts.append(f'<text x="{PAD + offset:.1f}" y="{PAD + span + 12}" font-size="8" '
                     f'text-anchor="middle">{tick}</text>')
        parts.append(f'<text x="{PAD - 3}" y="{PAD + span - offset + 3:.1f}" font-size="8" '
                     f'text-anchor="end">{tick}</text>')
    parts.append(f'<line x1="{PAD}" y1="{PAD + span}" x2="{PAD + span}" y2="{PAD}" '
                 f'stroke="#555" stroke-dasharray="4 3" stroke-width="0.8"/>')
    for factor in (1.25, 0.75):
        shift = math.log10(factor) / (high - low) * span
        parts.append(f'<line x1="{PAD}" y1="{PAD + span - shift:.1f}" x2="{PAD + span}" '
                     f'y2="{PAD - shift:.1f}" stroke="#888" stroke-dasharray="1 2" '
                     f'stroke-width="0.6"/>')
    parts.append(f'<clipPath id="nfg-clip-{phase}"><rect x="{PAD}" y="{PAD}" width="{span}" '
                 f'height="{span}"/></clipPath><g clip-path="url(#nfg-clip-{phase})">')
    for point in points:
        kind = "gpu" if str(point["family"]).startswith(GPU_PREFIX) else "neuron"
        x = PAD + at(float(point["estimated"]))
        y = PAD + span - at(float(point["measured"]))
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2" fill="{COLOURS[kind]}" '
                     f'fill-opacity="0.6"><title>{html.escape(str(point["id"]))}</title>'
                     f'</circle>')
    parts.append("</g>")
    parts.append(f'<text x="{PAD + span / 2}" y="{SIZE - 4}" font-size="9" '
                 f'text-anchor="middle">{html.escape(labels["chart"]["estimated"])}</text>')
    parts.append(f'<text x="10" y="{PAD + span / 2}" font-size="9" text-anchor="middle" '
                 f'transform="rotate(-90 10 {PAD + span / 2})">'
                 f'{html.escape(labels["chart"]["measured"])}</text>')
    parts.append(f'<text x="{PAD}" y="{PAD - 8}" font-size="10">'
                 f'{html.escape(labels["phase"][phase])}</text></svg>')
    return "".join(parts)


def chart(env: Any) -> str:
    lang = page.lang(env)
    labels = _labels(lang)["chart"]
    points = calc.serving_band.stored_points()
    panels = []
    for phase in PHASES:
        members = [p for p in points if p["phase"] == phase]
        if members:
            panels.append(_svg(phase, members, lang))
    legend = (f'<p class="nfg-calibration-legend"><span style="color:{COLOURS["neuron"]}">●</span>'
              f' {html.escape(labels["neuron"])} · <span style="color:{COLOURS["gpu"]}">●</span>'
              f' {html.escape(labels["gpu"])} · {html.escape(labels["diagonal"])}</p>')
    return (f'\n\n<figure class="nfg-calibration"><div style="display:flex;flex-wrap:wrap;'
            f'gap:0.5rem">{"".join(panels)}</div><figcaption>{html.escape(labels["title"])}'
            f'</figcaption>{legend}</figure>\n\n')


def summary(env: Any, name: str) -> str:
    """A figure of data/calibration.toml [summary] (coverage | points), formatted."""
    value = calc.data._toml("calibration.toml").get("summary", {})[name]
    if name == "coverage":
        return formatting.percent(float(value), page.lang(env), 0)
    return str(value)


def register(env: Any) -> None:
    env.macro(lambda: markdown.stash(env, families_table(env)), "calibration_families_table")
    env.macro(lambda: markdown.stash(env, chart(env)), "calibration_chart")
    env.macro(lambda name: summary(env, name), "calibration_cv_summary")
