"""The `calculator(name)` macro: a calculator widget with its first result prerendered.

The first result is `calc.display.present` for the page defaults, the same call the browser
worker makes for every later input, so the page shows real, identical text before Python loads.
The widget's JSON config carries only what the JavaScript needs to move strings: runtime URLs,
status strings, field names and defaults, and the prerendered result.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from calc.display import calculators, presenter, strings, units

from . import calculator_reference
from .page import lang as page_lang

WIDGET_SCRIPT = "assets/js/calc-widget.js"
# inlined into the widget: one render-blocking request less on calculator pages
WIDGET_CSS = Path(__file__).resolve().parent.parent / "docs" / "assets" / "css" / "calc.css"
CalculatorSpecError = calculators.CalculatorSpecError


def _root_prefix(env: Any) -> str:
    page = getattr(env, "page", None)
    url = str(getattr(page, "url", "") or "")
    depth = url.strip("/").count("/") + 1 if url.strip("/") else 0
    return "../" * depth


def _runtime(env: Any) -> dict[str, str]:
    runtime = (getattr(env, "conf", None) or {}).get("extra", {}).get("calc_runtime")
    if runtime is None:
        raise CalculatorSpecError("hooks/runtime_assets.py is not registered in mkdocs.yml hooks")
    return dict(runtime)


def config(spec: calculators.Calculator, lang: str, shown: dict[str, Any], root: str,
           runtime: dict[str, str]) -> dict[str, Any]:
    """What calc-widget.js needs: no formats, no units, only strings and names."""
    return {
        "name": spec.name,
        "lang": lang,
        "pyodideUrl": root + runtime["pyodide_dir"],
        "wheelUrl": root + runtime["wheel_path"],
        "chartUrl": root + runtime["chart_path"],
        "fields": [{"name": f.name, "modes": list(f.modes), "arch": f.arch} for f in spec.fields],
        "modes": [{"id": m.id, "chart": m.chart, "summary": list(m.summary)}  # summary: ux
                  for m in spec.modes],
        "defaults": spec.defaults(),
        "status": strings.ui(lang, "status"),
        "action": strings.ui(lang, "action"),
        "trust": {key: strings.ui(lang, "trust")[key]
                  for key in ("config_loaded", "config_read_failed")},
        "prerendered": shown,
    }


def download(lang: str, runtime: dict[str, Any]) -> dict[str, Any]:
    """The runtime download of a first visit (progress bar): total bytes and its label, the size
    formatted here (Python) for the page language."""
    total = int(runtime["download_bytes"])
    size = units.quantity(total, "B", lang)
    label = strings.ui(lang, "download")["label"].replace("{size}", size)
    return {"total_bytes": total, "label": label}


def render(name: str, env: Any) -> str:
    spec = calculators.calculator(name)
    lang = page_lang(env)
    shown = presenter.present({"calculator": name}, lang)
    if not shown["ok"]:
        raise CalculatorSpecError(f"{name}: defaults do not compute: {shown['errors']}")
    root = _root_prefix(env)
    mode = spec.mode(shown["mode"])
    template = _template_env().get_template("partials/calculator.html")
    html = template.render(
        calc=spec,
        mode=mode,
        lang=lang,
        shown=shown,
        values=shown["values"],
        strings={name: strings.ui(lang, name) for name in
                 ("title", "mode", "input", "status", "action", "result", "math", "caveat",
                  "trust")},
        result_labels=strings.result_labels(lang),
        input_label=lambda n: strings.field_labels(lang).get(n, n),
        reference=calculator_reference.reference(spec, lang),
        config_json=json.dumps(config(spec, lang, shown, root, _runtime(env)),
                               ensure_ascii=False, default=str).replace("</", "<\\/"),
        script_url=root + WIDGET_SCRIPT,
        css_text=_widget_css(),
        chart_height=(shown["chart"] or {}).get("height_px", 180),
        download=download(lang, _runtime(env)),
    )
    return "\n".join(line for line in html.splitlines() if line.strip())


def _widget_css() -> str:
    return " ".join(WIDGET_CSS.read_text(encoding="utf-8").split()).replace("</", "<\\/")


@cache  # one Environment per process: the template is compiled once, not per widget
def _template_env() -> Any:
    import jinja2

    overrides = Path(__file__).resolve().parent.parent / "overrides"
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(overrides)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def register(env: Any) -> None:
    @env.macro  # type: ignore[untyped-decorator]
    def calculator(name: str) -> str:
        """The calculator widget `name` (memory | performance | price), first result prerendered."""
        return render(name, env)
