"""The how-it-works family table shows each family's median |error| at each load (one step
alone / under load) from data/calibration.toml, in the page language."""

from __future__ import annotations

import html
import re
from types import SimpleNamespace

import pytest

import calc.data
import calc.serving_band
from calc.display import LANGS
from site_macros import calibration_view, formatting


def env_for(lang: str) -> SimpleNamespace:
    return SimpleNamespace(page=SimpleNamespace(file=SimpleNamespace(
        src_uri=f"{lang}/guide/how-calculators-work.md", locale=lang)))


def _row(family: str) -> dict[str, object]:
    return next(r for r in calc.serving_band.stored_families() if r["family"] == family)


@pytest.mark.parametrize("lang", LANGS)
def test_family_table_shows_the_median_at_each_load(lang: str) -> None:
    table = calibration_view.families_table(env_for(lang))
    header = calc.data.i18n(lang, "calibration")["header"]["median_by_load"]
    assert header in table
    row = _row("trainium2/vllm-neuron/decode")
    quiet = formatting.percent(float(row["median_abs_error_one_step"]), lang, 1)
    loaded = formatting.percent(float(row["median_abs_error_loaded"]), lang, 1)
    cell = f"{quiet} ({row['n_one_step']}) / {loaded} ({row['n_loaded']})"
    line = next(line for line in table.splitlines() if "trainium2" in line and "vllm-neuron" in line
                and calc.data.i18n(lang, "calibration")["phase"]["decode"] in line)
    assert cell in line
    # the cell sits under its header
    head_line = next(x for x in table.splitlines() if "<thead>" in x)
    headers = [html.unescape(h) for h in re.findall(r"<th>(.*?)</th>", head_line)]
    cells = re.findall(r"<td>(.*?)</td>", line)
    assert len(cells) == len(headers)
    assert cells[headers.index(header)] == cell
    assert int(row["n_one_step"]) + int(row["n_loaded"]) == int(row["n"])


def test_a_family_with_one_load_shows_a_dash_for_the_other() -> None:
    row = _row("inferentia2/transformers-neuronx/decode")   # static batches only
    assert "n_loaded" not in row and int(row["n_one_step"]) == int(row["n"])
    assert calibration_view._by_load(row, "en").endswith(" / –")
    training = _row("trainium/nxd-training/training")
    assert calibration_view._by_load(training, "en") == "–"
