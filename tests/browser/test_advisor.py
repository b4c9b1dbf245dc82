"""The advisor page in headless Chromium, in every language (issue 11 item 3): the form drives a
search in the worker, the table and the Pareto chart show calc.display.advisor's text for the same
form values as CPython, the table sorts by the order Python gives, and each row's link opens the
speed calculator showing the same figures as the row."""

from __future__ import annotations

from typing import Any

import pytest
from browser_expect import presented, query_values
from test_calculators import assert_local_only, page_url, set_input, wait_state

from calc import display

pytestmark = pytest.mark.browser

# typed as a reader of each language would (es: decimal comma)
FORMS: dict[str, dict[str, str]] = {
    "en": {"input_len": "512", "tpot_max": "0.05", "request_rate": "2"},
    "ja": {"input_len": "512", "tpot_max": "0.05", "request_rate": "2"},
    "es": {"input_len": "512", "tpot_max": "0,05", "request_rate": "2"},
}
# row cells the speed calculator shows for the same configuration (its dd[data-field])
SAME_AS_SPEED = ("ttft_s", "tpot_s", "output_tokens_per_s", "usd_per_million_output_tokens")

ROWS_JS = """
root => [...root.querySelectorAll('.nfg-adv__table tbody tr')].map(tr => ({
  id: tr.dataset.row,
  kind: tr.dataset.kind,
  front: tr.dataset.front === 'true',
  cells: Object.fromEntries([...tr.querySelectorAll('td[data-field]')]
    .filter(td => td.querySelector('.nfg-adv__text'))
    .map(td => [td.dataset.field, td.querySelector('.nfg-adv__text').textContent])),
  href: tr.querySelector('a[data-link="speed"]').getAttribute('href'),
  snippet: (tr.querySelector('td[data-field="snippet"] code') || {}).textContent || null,
}))
"""
CHART_JS = """
root => {
  const canvas = root.querySelector('.nfg-adv__chart canvas');
  const chart = window.Chart && window.Chart.getChart(canvas);
  if (!chart) return null;
  return {
    x: chart.options.scales.x.type, y: chart.options.scales.y.type,
    xticks: chart.scales.x.ticks.map((t, i) => chart.options.scales.x.ticks.callback(t.value, i)),
    sets: chart.data.datasets.map(d => ({label: d.label, style: d.pointStyle,
                                         line: !!d.showLine, points: d.data.length,
                                         texts: d.texts})),
  };
}
"""


def _rows(page: Any) -> list[dict[str, Any]]:
    return list(page.query_selector(".nfg-calc").evaluate(ROWS_JS))


def _wait_advisor(page: Any, after: int) -> int:
    page.wait_for_function(
        "n => Number(document.querySelector('.nfg-calc').dataset.advisorComputed || 0) > n",
        arg=after, timeout=60_000)
    return int(page.get_attribute(".nfg-calc", "data-advisor-computed") or 0)


@pytest.mark.parametrize("lang", display.LANGS)
def test_form_table_chart_link(browser_site: Any, open_page: Any, lang: str) -> None:
    probe = open_page(page_url(browser_site.base_url, lang, "advisor"))
    page = probe.page

    # prerendered: the table is in the HTML before Python runs, as CPython presents the defaults
    built = _rows(page)
    defaults = presented("advisor", {}, lang)["advisor"]
    assert [r["id"] for r in built] == [r["id"] for r in defaults["rows"]]
    assert built[0]["cells"] == {k: c["text"] for k, c in defaults["rows"][0]["cells"].items()}
    assert wait_state(page, "ready", "failed") == "ready"

    # 1. form -> a new search in the worker -> the table CPython presents for the same text
    seen = 0
    for field, value in FORMS[lang].items():
        set_input(page, field, value)
    page.wait_for_function(
        "v => new URLSearchParams(location.search).get('request_rate') === v",
        arg=FORMS[lang]["request_rate"], timeout=60_000)
    seen = _wait_advisor(page, seen)
    raw = query_values(page.evaluate("location.href"))
    expected = presented("advisor", raw, lang)["advisor"]
    assert expected["rows"], expected["message"]
    shown = _rows(page)
    assert len(shown) == len(expected["rows"])
    for got, want in zip(shown, expected["rows"], strict=True):
        assert got["cells"] == {k: c["text"] for k, c in want["cells"].items()}
        assert got["front"] == want["front"] and got["kind"] == want["kind"]
        assert got["href"] == want["link"]["href"]
        assert got["snippet"] == (want["snippet"]["text"] or None)
    assert "instance_count" in shown[0]["cells"]  # a rate: the instance count column
    assert page.inner_text(".nfg-adv__count").strip() == expected["count_text"]

    # 2. sorting: by the row order Python gives for the column, then reversed
    page.click('.nfg-adv__table button[data-sort="usd_per_hour"]')
    assert [r["id"] for r in _rows(page)] == expected["order"]["usd_per_hour"]
    assert page.get_attribute('th[data-key="usd_per_hour"]', "aria-sort") == "ascending"
    page.click('.nfg-adv__table button[data-sort="usd_per_hour"]')
    assert [r["id"] for r in _rows(page)] == expected["order"]["usd_per_hour"][::-1]
    assert page.get_attribute('th[data-key="usd_per_hour"]', "aria-sort") == "descending"

    # 3. the Pareto chart: log axes with Python's tick texts, Neuron ▲ vs GPU ●, front as a line
    page.query_selector(".nfg-adv__chart").scroll_into_view_if_needed()
    page.wait_for_function("() => document.querySelector('.nfg-calc').dataset.chartDrawn",
                           timeout=30_000)
    drawn = page.query_selector(".nfg-calc").evaluate(CHART_JS)
    spec = expected["chart"]
    assert drawn["x"] == drawn["y"] == "logarithmic"
    assert drawn["xticks"] == [t["text"] for t in spec["x_axis"]["ticks"]]
    assert [s["label"] for s in drawn["sets"]] == [s["label"] for s in spec["datasets"]]
    styles = {s["style"] for s in drawn["sets"] if not s["line"]}
    assert styles == {d["shape"] for d in spec["datasets"] if not d["line"]}
    assert len(styles) == len({r["kind"] for r in shown})  # one marker shape per family
    front = next(s for s in drawn["sets"] if s["line"])
    assert front["points"] == sum(1 for r in shown if r["front"]) >= 1
    assert drawn["sets"][0]["texts"] == [p["text"] for p in spec["datasets"][0]["points"]]

    # 4. a row's link opens the speed calculator with that setup, showing the same figures
    for index in (0, len(shown) - 1):
        row = next(r for r in expected["rows"] if r["id"] == shown[index]["id"])
        speed = open_page(page.url.split("?")[0].rsplit("/advisor/", 1)[0]
                          + "/advisor/" + row["link"]["href"])
        assert wait_state(speed.page, "ready", "failed") == "ready"
        figures = dict(speed.page.eval_on_selector_all(
            ".nfg-calc__outputs:not([hidden]) dd[data-field]",
            "els => els.map(e => [e.dataset.field, e.textContent])"))
        for field in SAME_AS_SPEED:  # the same figure; the speed page adds its error band
            cell, shown_there = row["cells"][field]["text"], figures[field]
            assert shown_there == cell or (
                shown_there.startswith(cell) and not shown_there[len(cell)].isdigit()), (
                field, row["link"]["href"], shown_there, cell)
        assert not speed.console_errors, speed.console_errors

    # the link itself navigates there (same document-relative URL the test opened)
    page.click(f'tr[data-row="{shown[0]["id"]}"] a[data-link="speed"]')
    page.wait_for_url("**/calculators/performance/**", timeout=30_000)
    assert not probe.console_errors, probe.console_errors
    assert_local_only(probe.requests)
