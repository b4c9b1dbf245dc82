"""No JavaScript in the site turns a number into text: calc.display (Python) makes every display
string, at build time and in the worker; the site's JS only moves strings into the DOM."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
JS_FILES = sorted((ROOT / "docs" / "assets" / "js").glob("*.js"))
TEMPLATES = sorted((ROOT / "overrides").rglob("*.html"))
FORMATTING = re.compile(
    r"\.toFixed\(|\.toPrecision\(|\.toLocaleString\(|\.toExponential\(|Intl\s*\.\s*\w+Format"
    r"|\bNumberFormat\b|\bnumberFormat\b|Math\.round\(|Math\.floor\(|Math\.ceil\(|\bparseFloat\("
    r"|\bparseInt\(|\bNumber\(|/\s*2\s*\*\*\s*30|\bGIB\b|\bformat(Value|Step|Error)\b"
)


def test_the_site_has_javascript_to_check() -> None:
    names = {p.name for p in JS_FILES}
    assert {"calc-widget.js", "calc-chart.js", "calc-worker.js", "calc-client.js"} <= names
    assert "calc-format.js" not in names


@pytest.mark.parametrize("path", JS_FILES + TEMPLATES, ids=lambda p: p.name)
def test_no_number_formatting_in_site_javascript(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".html":  # only the scripts inside templates
        text = "\n".join(re.findall(r"<script[^>]*>(.*?)</script>", text, flags=re.DOTALL))
    text = re.sub(r"^\s*//.*$", "", text, flags=re.MULTILINE)  # comments may name them
    found = [m.group(0) for m in FORMATTING.finditer(text)]
    assert not found, f"{path.name} formats numbers: {found}"


def test_the_check_can_fail() -> None:
    for snippet in ("x.toFixed(2)", "new Intl.NumberFormat('es')", "v.toLocaleString()",
                    "Math.round(v * 100)", "bytes / 2 ** 30"):
        assert FORMATTING.search(snippet), snippet
