"""The calculator widgets' selects as the macro renders them (no site build, fake page objects):
every option of a translated select shows its label in the page language, its value the id
(QA report section 5: price type, accelerator family, recomputation, recipe showed raw ids)."""

from __future__ import annotations

from html.parser import HTMLParser
from types import SimpleNamespace

import pytest

from calc import display
from calc.display import calculators, present, strings
from site_macros import calculator_widget

pytestmark = pytest.mark.site

RUNTIME = {"pyodide_dir": "assets/pyodide/", "wheel_path": "assets/calc.whl",
           "chart_path": "assets/js/chart.js", "download_bytes": 1_000_000}


def env_for(calculator: str, lang: str) -> SimpleNamespace:
    src = f"{lang}/calculators/{calculator}.md"
    url = ("" if lang == "en" else f"{lang}/") + f"calculators/{calculator}/"
    return SimpleNamespace(
        page=SimpleNamespace(url=url, file=SimpleNamespace(src_uri=src, locale=lang)),
        conf={"extra": {"calc_runtime": RUNTIME}})


class _Selects(HTMLParser):
    """{select name: [(value, label)]}."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.selects: dict[str, list[tuple[str, str]]] = {}
        self.select: str | None = None
        self.option: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: (v or "") for k, v in attrs}
        if tag == "select":
            self.select = a["name"]
            self.selects[self.select] = []
        elif tag == "option" and self.select:
            self.option = [a.get("value", ""), ""]

    def handle_data(self, data: str) -> None:
        if self.option is not None:
            self.option[1] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "option" and self.option is not None and self.select:
            self.selects[self.select].append((self.option[0], self.option[1]))
            self.option = None
        elif tag == "select":
            self.select = None


@pytest.mark.parametrize("lang", display.LANGS)
@pytest.mark.parametrize("name", sorted(calculators.CALCULATORS))
def test_rendered_options_show_labels_in_the_page_language(name, lang):
    parser = _Selects()
    parser.feed(calculator_widget.render(name, env_for(name, lang)))
    spec = calculators.calculator(name)
    translated = [f.name for f in spec.fields if f.name in strings.CHOICE_TABLES]
    assert translated, name
    shown = present({"calculator": name}, lang)
    for field in translated:
        options = [(v, label) for v, label in parser.selects[field] if v]
        # a select whose options follow other inputs (the serving frameworks of the instance)
        # is rendered with the presenter's options for the page's defaults
        offered = shown["choices"].get(field) or calculators.field(spec, field).choices(
            spec.mode_ids())
        ids = [o["value"] for o in offered if o["value"]]
        assert [v for v, _ in options] == ids, (field, lang)
        for value, label in options:
            assert label == strings.choice_label(field, value, lang), (field, lang, value)
            assert label != value, (name, field, lang, value)


def test_the_price_type_select_of_the_japanese_advisor():
    parser = _Selects()
    parser.feed(calculator_widget.render("advisor", env_for("advisor", "ja")))
    assert parser.selects["price_kind"] == [
        ("on-demand", "オンデマンド"), ("ri-effective", "リザーブド (実効)"),
        ("capacity-block", "キャパシティブロック")]
    assert parser.selects["family"] == [("all", "すべて"), ("neuron", "AWS Neuron"),
                                        ("gpu", "NVIDIA GPU")]
