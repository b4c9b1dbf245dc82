"""What the browser should show, computed in CPython (the server side of each check).

The page's text comes from calc.display.present, at build time (prerender) and in the worker
(Pyodide); here the same function runs in CPython for the same typed form values, so a check
compares text made by the same Python code on two interpreters, and the raw data-value against
calc.api.
"""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from calc.display import calculators, present


def default_raw(name: str) -> dict[str, str]:
    """The default inputs as the form shows them (what the prerendered result was computed for)."""
    return calculators.calculator(name).defaults()


def query_values(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))


def presented(name: str, raw: dict[str, str], lang: str = "en") -> dict[str, Any]:
    return present({"calculator": name, "values": raw}, lang)


def expected_fields(name: str, raw: dict[str, str], lang: str = "en") -> dict[str, Any]:
    """field -> raw value (the api result value) for the outputs of the active mode."""
    shown = presented(name, raw, lang)
    values: dict[str, Any] = {}
    for output in shown["outputs"]:
        response = shown["responses"][output["request"]]
        values[output["field"]] = (response["result"].get(output["field"]) if response["ok"]
                                   else None)
    return values


def expected_texts(name: str, raw: dict[str, str], lang: str) -> dict[str, str]:
    return {o["field"]: o["text"] for o in presented(name, raw, lang)["outputs"]}


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
    """(field, localized message) of the first error, as the page must show it."""
    error = presented(name, raw, lang)["errors"][0]
    return str(error["field"]), str(error["message"])
