"""What the browser should show, computed in CPython with calc.api (the server side of each check).

Kept independent of calc-widget.js: query-string values are typed here from the widget specs in
site_macros/calculators.py, then sent through the same calc.api.run the worker calls.
"""

from __future__ import annotations

import math
import re
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from babel.numbers import format_decimal

from calc import api, data
from site_macros.calculators import CALCULATORS, Calculator, Mode, build_params

INT_RE = re.compile(r"^[+-]?\d+$")
NUMBER_RE = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$", re.IGNORECASE)


def typed_values(calc_spec: Calculator, raw: dict[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for spec in calc_spec.inputs:
        text = raw.get(spec.name, "").strip()
        if text == "":
            values[spec.name] = None
        elif spec.control == "int" and INT_RE.match(text):
            values[spec.name] = int(text)
        elif spec.control == "number" and NUMBER_RE.match(text.replace(",", ".")):
            number = float(text.replace(",", "."))
            values[spec.name] = int(number) if number.is_integer() and "." not in text else number
        else:
            values[spec.name] = text
    return values


def default_raw(name: str) -> dict[str, str]:
    """The default inputs as the form shows them (what the prerendered result was computed for)."""
    return {i.name: "" if i.default is None else str(i.default) for i in CALCULATORS[name].inputs}


def query_values(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))


def mode_of(calc_spec: Calculator, values: dict[str, Any]) -> Mode:
    return next((m for m in calc_spec.modes if m.id == values.get("mode")), calc_spec.modes[0])


def responses_for(name: str, raw: dict[str, str]) -> tuple[Mode, dict[str, dict[str, Any]]]:
    calc_spec = CALCULATORS[name]
    values = typed_values(calc_spec, raw)
    mode = mode_of(calc_spec, values)
    responses = {
        request.id: api.run({"schema_version": 1, "kind": request.kind,
                             "params": build_params(request, values)})
        for request in mode.requests
    }
    return mode, responses


def expected_fields(name: str, raw: dict[str, str]) -> dict[str, Any]:
    """field -> value (None when the result has no value) for the outputs of the active mode."""
    mode, responses = responses_for(name, raw)
    expected: dict[str, Any] = {}
    for output in mode.outputs:
        response = responses[output.request]
        expected[output.field] = response["result"].get(output.field) if response["ok"] else None
    return expected


def same_value(shown: str | None, expected: Any) -> bool:
    """data-value (a string written by JS or the macro) against the CPython value."""
    if expected is None:
        return shown is None
    if shown is None:
        return False
    if isinstance(expected, bool):
        return shown == ("true" if expected else "false")
    if isinstance(expected, (int, float)):
        try:
            number = float(shown)
        except ValueError:
            return False
        return math.isclose(number, float(expected), rel_tol=1e-12, abs_tol=0.0)
    return shown == str(expected)


def error_message(name: str, raw: dict[str, str], lang: str) -> tuple[str, str]:
    """(field, localized message) of the first failing request, as the page must show it."""
    _, responses = responses_for(name, raw)
    failing = next(r for r in responses.values() if not r["ok"])
    error = failing["error"]
    errors_i18n = data.i18n(lang, "errors")
    ui = data.i18n(lang, "calculators")
    label = ui.get("input", {}).get(error["field"]) or errors_i18n.get("input", {}).get(
        error["field"], error["field"])
    template = errors_i18n.get("error", {}).get(error["key"], error["message"])
    params = {**error["params"], "field": label}

    def show(value: Any) -> str:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(format_decimal(value, format="#,##0.######", locale=lang))
        return str(value)

    def fill(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in params:
            return match.group(0)
        value = params[key]
        return ", ".join(show(v) for v in value) if isinstance(value, list) else show(value)

    return str(error["field"]), re.sub(r"\{(\w+)\}", fill, str(template))
