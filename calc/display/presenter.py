"""`present(request, lang)`: a calculator's inputs (as typed text) -> display-ready results.

The one function both paths call: the build-time prerender (site_macros/calculator_widget.py)
and the browser worker (docs/assets/js/calc-worker.js, through `present_json`). JavaScript only
copies the strings it returns into the DOM.

request = {"calculator": "memory" | "performance" | "price",
           "values": {field: text as typed}}   # missing fields take the page defaults
result  = {"calculator", "lang", "mode", "values": {field: text},
           "ok": bool (the main request computed),
           "outputs": [{"field", "request", "unit", "label", "text", "value"}],  # value: raw text
           "errors": [{"field", "key", "message"}],
           "derivation": [{"key", "label", "formula", "text", "value", "unit"}],
           "chart": {...} | None (calc.display.charts),
           "responses": {request id: calc.api.run response}}   # raw, for exports
"""

import json
from typing import Any

from .. import api, data
from ..errors import CalcError
from . import calculators, charts, data_text, formulas, lang_state, strings, units
from .numbers import number
from .parse import parse_number

NUMERIC_CONTROLS = ("int", "number")


def _typed(spec: calculators.Calculator, values: dict[str, str], lang: str
           ) -> tuple[dict[str, Any], dict[str, CalcError]]:
    """Form text -> typed values (numbers parsed in the page language); parse errors by field."""
    typed: dict[str, Any] = {}
    errors: dict[str, CalcError] = {}
    for field in spec.fields:
        text = values.get(field.name, "").strip()
        if text == "":
            typed[field.name] = None
        elif field.control() in NUMERIC_CONTROLS:
            try:
                typed[field.name] = parse_number(text, lang, field.name)
            except CalcError as error:
                errors[field.name] = error
        else:
            typed[field.name] = text
    return typed, errors


def _params(request: calculators.Request, typed: dict[str, Any]) -> dict[str, Any]:
    custom = typed.get("model") == calculators.CUSTOM_MODEL
    params: dict[str, Any] = {}
    for name in request.params:
        if (name == "model" and custom) or (name in calculators.ARCH_FIELDS and not custom):
            continue
        if typed.get(name) is not None:
            params[name] = typed[name]
    params.update(dict(request.fixed))
    return params


def _used(request: calculators.Request, typed: dict[str, Any]) -> set[str]:
    """The form fields a request reads (a field that did not parse counts too)."""
    custom = typed.get("model") == calculators.CUSTOM_MODEL
    return {name for name in request.params
            if not ((name == "model" and custom) or (name in calculators.ARCH_FIELDS
                                                     and not custom))}


def error_message(error: dict[str, Any], lang: str) -> str:
    """An error dict of calc.api in the language, its numbers formatted there."""
    template = strings.table(lang, "errors", "error").get(str(error.get("key")),
                                                          str(error.get("message", "")))
    label = strings.field_labels(lang).get(str(error.get("field")), str(error.get("field")))

    def show(value: Any) -> str:
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, int | float):
            return number(value, lang, 6)
        return str(value)

    params = {**(error.get("params") or {}), "field": label}
    out = str(template)
    for key, value in params.items():
        text = ", ".join(show(v) for v in value) if isinstance(value, list) else show(value)
        out = out.replace("{" + str(key) + "}", text)
    return out


def missing_text(response: dict[str, Any] | None, lang: str) -> str | None:
    """'not published: <reason>' for a null figure whose result says why."""
    if not response or not response.get("ok"):
        return None
    result = response["result"]
    key = result.get("price_missing_reason") or result.get("peak_missing_reason")
    if not key:
        return None
    label = strings.ui(lang, "result")["not_published"]
    if key == "not_published":
        reason = price_reason(result, lang)
        return f"{label}: {reason}" if reason else label
    return f"{label}: {strings.table(lang, 'steps', 'reason').get(key, key)}"


def price_reason(result: dict[str, Any], lang: str) -> str | None:
    """The price record's `usd_per_hour_missing` in `lang` (calc.display.data_text), or None when
    the record gives none in that language (plain text cannot mark an English fallback)."""
    if not result.get("price_missing_note"):
        return None
    wanted = (result.get("instance"), result.get("region"), result.get("price_kind"),
              result.get("price_as_of"))
    for record in data.records("prices"):
        if (record.get("instance"), record.get("region"), record.get("kind", "on-demand"),
                str(record.get("as_of", ""))) == wanted:
            text, text_lang = data_text.missing(record, "usd_per_hour", lang)
            return text if text and text_lang == strings.lang_or_default(lang) else None
    return None


def value_text(value: Any, unit: str, lang: str) -> str:
    """One result value as text: numbers with units, verdicts, bounds."""
    result = strings.ui(lang, "result")
    if value is None:
        return result["none"]
    if isinstance(value, bool):
        return result["fits_yes" if value else "fits_no"]
    if isinstance(value, str):
        return strings.value_text(value, lang)
    if isinstance(value, int | float):
        return units.quantity(value, unit if unit not in ("bool", "text") else "", lang)
    return str(value)


def derivation_rows(responses: dict[str, Any], lang: str) -> list[dict[str, Any]]:
    labels = strings.table(lang, "steps", "step")
    rows = []
    for response in responses.values():
        if not response.get("ok"):
            continue
        for step in response["result"].get("derivation", []):
            value = step.get("value")
            unit = str(step.get("unit", ""))
            rows.append({
                "key": step["key"],
                "label": labels.get(step["key"], step["key"]),
                "formula": formulas.localise(str(step.get("formula", "")), lang),  # ux: words
                "text": value_text(value, unit, lang),
                "value": units.raw_value(value),
                "unit": unit,
            })
    return rows


def instance_kinds() -> dict[str, str]:
    return {str(i["id"]): str(i.get("kind", "neuron")) for i in data.records("instances")}


def present(request: dict[str, Any], lang: str) -> dict[str, Any]:
    """Display-ready results of one calculator for the typed form values, in `lang`."""
    lang = strings.lang_or_default(lang)
    spec = calculators.calculator(str(request.get("calculator")))
    values = spec.defaults()
    given = request.get("values") or {}
    values.update({k: str(v) for k, v in given.items() if k in values and v is not None})
    mode = spec.mode(values.get("mode"))
    typed, parse_errors = _typed(spec, values, lang)
    responses: dict[str, Any] = {}
    for req in mode.requests:
        failed = sorted(_used(req, typed) & set(parse_errors))
        if failed:
            error = parse_errors[failed[0]]
            responses[req.id] = {"schema_version": api.SCHEMA_VERSION, "ok": False,
                                 "kind": req.kind, "error": error.as_dict()}
        else:
            responses[req.id] = api.run({"schema_version": api.SCHEMA_VERSION, "kind": req.kind,
                                         "params": _params(req, typed)})
    labels = strings.result_labels(lang)
    outputs = []
    for out in mode.outputs:
        response = responses.get(out.request)
        value = response["result"].get(out.field) if response and response.get("ok") else None
        text = value_text(value, units.result_unit(out.field), lang)
        if value is None:
            text = missing_text(response, lang) or text
        outputs.append({"field": out.field, "request": out.request,
                        "unit": units.result_unit(out.field),
                        "label": labels.get(out.field, out.field), "text": text,
                        "value": units.raw_value(value)})
    errors = []
    seen = set()
    for response in responses.values():
        if not response.get("ok"):
            error = response["error"]
            ident = (error.get("field"), error.get("key"))
            if ident in seen:
                continue
            seen.add(ident)
            errors.append({"field": error.get("field"), "key": error.get("key"),
                           "message": error_message(error, lang)})
    shown = {
        "calculator": spec.name,
        "lang": lang,
        "mode": mode.id,
        "values": values,
        # ux (issue 14): the same inputs as each language's page reads them (language switcher)
        "values_by_lang": lang_state.values_by_lang(values, typed, set(parse_errors)),
        "ok": bool(responses.get("main", {}).get("ok")),
        "outputs": outputs,
        "errors": errors,
        "derivation": derivation_rows(responses, lang),
        "chart": charts.chart(mode.chart, responses, lang, instance_kinds()),
        "responses": responses,
    }
    if spec.name == "advisor":  # its options table, Pareto chart, links, snippets
        from .advisor import extend

        extend(shown, lang)
    return shown


def present_json(request_json: str, lang: str) -> str:
    """present() across the worker boundary: JSON text in, JSON text out; never raises."""
    try:
        result = present(json.loads(request_json), lang)
    except Exception as error:  # noqa: BLE001 - the worker boundary must answer
        failure = CalcError("request", "internal_error",
                            {"value": f"{type(error).__name__}: {error}"[:200]})
        result = {"ok": False, "errors": [{"field": "request", "key": failure.key,
                                           "message": error_message(failure.as_dict(), lang)}]}
    return json.dumps(result, ensure_ascii=False, allow_nan=False, default=str)
