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
           "responses": {request id: calc.api.run response},   # for exports (fit-gated)
           "verdict": {fits, request, text, reason, suggestions: [{change, text, values}]}
                      | None (calc.display.trust: a setup that does not fit),
           "notes": [{key, text}],           # TP choice, price fallback, ignored link inputs
           "choices": {field: [{value, label}]},  # options that depend on other inputs
           "export_values": {field: text}}   # only the inputs that were checked and used
"""

import json
from functools import lru_cache
from typing import Any

from .. import api, data, inputs
from ..errors import CalcError
from ..hf_config import MAX_CONFIG_CHARS
from . import calculators, charts, data_text, formulas, lang_state, strings, trust, units
from .numbers import number
from .parse import parse_number

NUMERIC_CONTROLS = ("int", "number")
LIST_SEPARATOR = {"ja": "、", "es": "; "}
# their selects offer "" (auto: the instance's default dtype / framework)
EMPTY_MEANS_AUTO = ("dtype", "framework")


def _typed(spec: calculators.Calculator, values: dict[str, str], lang: str
           ) -> tuple[dict[str, Any], dict[str, CalcError]]:
    """Form text -> typed values (numbers parsed in the page language); parse errors by field."""
    typed: dict[str, Any] = {}
    errors: dict[str, CalcError] = {}
    defaults = spec.defaults()
    for field in spec.fields:
        text = values.get(field.name, "").strip()
        if text == "" and defaults[field.name] != "" and field.name not in EMPTY_MEANS_AUTO:
            # a field the page fills, emptied: the engine would take its own default (price
            # hours 1, not the page's 730), so it is refused, never computed unannounced
            errors[field.name] = CalcError(field.name, "value_required")
        elif text == "":
            typed[field.name] = None
        elif field.control() in NUMERIC_CONTROLS:
            try:
                trust.check_length(text, field.name)
                typed[field.name] = parse_number(text, lang, field.name)
                trust.check_size(text, typed[field.name], field.name)
            except CalcError as error:
                typed.pop(field.name, None)
                errors[field.name] = error
        elif field.control() == "config":
            try:
                typed[field.name] = _config_object(text, field.name)
            except CalcError as error:
                errors[field.name] = error
        else:
            typed[field.name] = text
    return typed, errors



def _config_object(text: str, field: str) -> dict[str, Any]:
    """A pasted config.json as the JSON object the engine's hf_config param takes."""
    if len(text) > MAX_CONFIG_CHARS:
        raise CalcError(field, "config_too_large", {"max": MAX_CONFIG_CHARS})
    try:
        parsed = json.loads(text.removeprefix("\ufeff"))   # a byte-order mark is no content
    except json.JSONDecodeError as error:
        # broken or cut off (a partial paste): where, not "not an object" (QA pass E, item 6)
        raise CalcError(field, "config_bad_json",
                        {"line": error.lineno, "column": error.colno}) from None
    except (ValueError, RecursionError):
        raise CalcError(field, "config_not_json", {}) from None
    if not isinstance(parsed, dict):   # valid JSON, but a list, a string, a number...
        raise CalcError(field, "config_not_json", {})
    return parsed


def _config_notes(typed: dict[str, Any], responses: dict[str, Any],
                  lang: str) -> list[dict[str, str]]:
    """A pasted multimodal config.json answered: its figures are the language model's
    (calc.hf_config.uncounted_parts), said next to them."""
    from ..hf_config import uncounted_parts

    config = typed.get(calculators.CONFIG_FIELD)
    if _skipped(calculators.CONFIG_FIELD, typed) or not any(
            r.get("ok") for r in responses.values()):
        return []
    parts = uncounted_parts(config)
    if not parts:
        return []
    return [{"key": "config_language_model_only",
             "text": trust.text(lang, "config_language_model_only", parts=", ".join(parts))}]


def _skipped(name: str, typed: dict[str, Any]) -> bool:
    """A model field the request does not send: the preset id for a custom model, the shape
    fields for a preset, the shape fields when a config.json is given."""
    custom = typed.get("model") == calculators.CUSTOM_MODEL
    config = custom and typed.get(calculators.CONFIG_FIELD) is not None
    if name == "model":
        return custom
    if name == calculators.CONFIG_FIELD:
        return not custom
    if name in calculators.ARCH_FIELDS:
        return not custom or config
    return False


def _params(request: calculators.Request, typed: dict[str, Any]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for name in request.params:
        if _skipped(name, typed):
            continue
        if typed.get(name) is not None:
            params[name] = typed[name]
    params.update(dict(request.fixed))
    return params


def _used(request: calculators.Request, typed: dict[str, Any]) -> set[str]:
    """The form fields a request reads (a field that did not parse counts too)."""
    return {name for name in request.params if not _skipped(name, typed)}


def _other_errors(req: calculators.Request, typed: dict[str, Any],
                  refused: set[str]) -> list[CalcError]:
    """The inputs of a refused request that the engine's schema refuses on their own (an
    unknown instance next to an unknown model, a number out of range...), each checked alone
    as calc.inputs checks it. Model shape fields are checked together by the engine: left to
    it."""
    found = []
    for name in req.params:
        value = typed.get(name)
        if name in refused or value is None or _skipped(name, typed):
            continue
        try:
            inputs.check_value(name, value)
        except CalcError as error:
            if error.field == name:
                found.append(error)
    return found


def error_message(error: dict[str, Any], lang: str) -> str:
    """An error dict of calc.api in the language, its numbers formatted there."""
    template = (strings.table(lang, "errors", "error").get(str(error.get("key")))
                or strings.ui(lang, "trust_error").get(str(error.get("key")))
                or str(error.get("message", "")))
    label = strings.field_labels(lang).get(str(error.get("field")), str(error.get("field")))

    if not template:
        template = trust.text(lang, str(error.get("key")))

    def show(value: Any) -> str:
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, int | float):
            if isinstance(value, int) and abs(value) > trust.MAX_NUMBER_VALUE * 10**6:
                return trust.text(lang, "huge_number")
            try:
                return number(value, lang, 6)
            except (ArithmeticError, ValueError):
                return trust.text(lang, "huge_number")
        return str(value)[:80]

    def choices(values: list[Any]) -> str:
        # the options of a select by their labels in the page language ("推論, 学習", not
        # "inference, training"); what the reader typed ({value}) stays as typed
        field = str(error.get("field"))
        return ("、" if lang == "ja" else ", ").join(
            strings.choice_label(field, v, lang) if isinstance(v, str) else show(v)
            for v in values)

    params = {**(error.get("params") or {}), "field": label}
    with_field = params.pop("with_field", None)
    with_choice = params.pop("with_choice", None)
    if isinstance(with_field, str):   # needs_field / not_with_field: by labels, not ids
        params["value"] = strings.field_labels(lang).get(with_field, with_field) + (
            f" = {strings.choice_label(with_field, with_choice, lang)}"
            if isinstance(with_choice, str) else "")
    out = str(template)
    for key, value in params.items():
        if isinstance(value, list):
            # values: "、" in Japanese, "; " in Spanish, whose decimal comma would run into ", "
            text = choices(value) if key == "allowed" else LIST_SEPARATOR.get(lang, ", ").join(
                show(v) for v in value)
        else:
            text = show(value)
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
                "text": _band_step_text(response["result"], str(step["key"]), lang)
                or (trust.basis_label(value, lang) if step["key"] == "basis" else None)
                or value_text(value, unit, lang),
                "value": units.raw_value(value),
                "unit": unit,
            })
    return rows


def _band_step_text(result: dict[str, Any], key: str, lang: str) -> str | None:
    """An error-band step ("error_band_<field>") as the band of that field, each end formatted
    with the field's unit in the page language ("4.61 ms – 11.86 ms")."""
    if not key.startswith("error_band_"):
        return None
    field = key[len("error_band_"):]
    band = (result.get("error_band") or {}).get(field)
    if not (isinstance(band, list | tuple) and len(band) == 2
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in band)):
        return None
    unit = units.result_unit(field)
    return (f"{units.quantity(band[0], unit, lang)}\u2009\u2013\u2009"
            f"{units.quantity(band[1], unit, lang)}")


def instance_kinds() -> dict[str, str]:
    return {str(i["id"]): str(i.get("kind", "neuron")) for i in data.records("instances")}


def _link_errors(spec: calculators.Calculator, values: dict[str, str], names: list[str],
                 facts: lang_state.LinkFacts, lang: str
                 ) -> tuple[list[CalcError], list[dict[str, str]]]:
    """A mode id the calculator does not have is an error (never another mode's numbers);
    so is an input the link gives more than once (given_twice, every value named: none of them
    is computed); inputs the calculator does not know (from a share link) are named in a note,
    and so is a pinned result the link carries that cannot be restored (with the reason): the
    request's `link` (calc.display.lang_state.link_facts)."""
    errors = []
    mode_text = values.get("mode")
    if mode_text is not None and not mode_text.strip():   # never the first mode unannounced
        errors.append(CalcError("mode", "value_required"))
    elif mode_text and mode_text not in spec.mode_ids():
        errors.append(CalcError("mode", "unknown_choice",
                                {"value": mode_text[:40], "allowed": list(spec.mode_ids())}))
    read = {name for req in spec.mode(mode_text).requests for name in req.params}
    for name, given in facts.twice.items():
        if name in values and (name in read or name == "mode"):   # a field this mode shows
            errors.append(CalcError(name, "given_twice", {"value": given}))
    notes = []
    if names:
        shown = ", ".join(str(n)[:40] for n in names[:10])
        notes.append({"key": "ignored", "text": trust.text(lang, "ignored_inputs", names=shown)})
    dropped = [name for name in dict.fromkeys(facts.dropped) if name in values or name == "pin"]
    if dropped:   # the language switcher could not carry them (lang-state.js): said, not hidden
        labels = {**strings.field_labels(lang), "pin": trust.text(lang, "pinned_result")}
        notes.append({"key": "not_carried", "text": trust.text(
            lang, "not_carried", names=LIST_SEPARATOR.get(lang, ", ").join(
                labels.get(name, name) for name in dropped))})
    if facts.pin is not None:
        reason = _pin_reason(spec.name, tuple(facts.pin), lang)
        notes.append({"key": "pin_invalid",
                      "text": trust.text(lang, "pin_invalid", reason=reason) if reason
                      else trust.text(lang, "pin_invalid_plain")})
    return errors, notes


@lru_cache(maxsize=16)
def _pin_reason(calculator: str, pin: tuple[str, ...], lang: str) -> str:
    """Why calc-pin.js could not restore the link's pin, in the terms of this page ("" when
    there is nothing more to say). Kept: the widget sends the same pin with every input until
    the reader pins or unpins, and the answer depends on nothing else."""
    if len(pin) > 1:
        return trust.text(lang, "pin_given_twice")
    if not pin or not pin[0].strip():
        return ""
    spec = calculators.calculator(calculator)
    pinned, repeated = lang_state.query_values(pin[0])
    outside = [key for key in pinned if key not in spec.defaults()]
    if outside:
        return trust.text(lang, "pin_unknown", names=", ".join(k[:40] for k in outside[:10]))
    again = present({"calculator": calculator, "values": pinned, "link": {"twice": repeated}},
                    lang)
    return "; ".join(str(e["message"]) for e in again["errors"][:3])


data.on_reset(_pin_reason.cache_clear)  # its answer is computed from the data


def _gate_responses(responses: dict[str, Any], blocked: set[str]) -> dict[str, Any]:
    """The responses with no speed or cost (and only the memory steps) where the setup does
    not fit: what the page, the chart and the exports get."""
    out = {}
    for rid, response in responses.items():
        if rid not in blocked:
            out[rid] = response
            continue
        result = {k: (None if k in trust.SPEED_COST_FIELDS else v)
                  for k, v in response["result"].items()}
        result["derivation"] = [step for step in result.get("derivation") or []
                                if step.get("unit") == "B"]
        out[rid] = {**response, "result": result}
    return out


def _choices(spec: calculators.Calculator, values: dict[str, str], lang: str
             ) -> tuple[dict[str, list[dict[str, str]]], list[dict[str, str]]]:
    """Options that depend on other inputs: the dtypes and serving frameworks of the chosen
    instance (the advisor, which has none: the frameworks of the family's instances)."""
    names = {f.name for f in spec.fields}
    choices: dict[str, list[dict[str, str]]] = {}
    notes: list[dict[str, str]] = []
    if "dtype" in names:
        supported, note = trust.dtype_choices(values.get("instance"), lang)
        all_dtypes = [o["value"] for o in calculators.field(spec, "dtype").choices(())]
        offered = supported if supported is not None else all_dtypes
        options = [{"value": "", "label": trust.text(lang, "dtype_auto")}]
        options += [{"value": d, "label": d} for d in offered]
        choices["dtype"] = options
        notes += [{"key": "dtypes", "text": note}] if note else []
    if "framework" in names:
        choices["framework"] = trust.framework_choices(
            values.get("instance") if "instance" in names else None,
            values.get("family") if "family" in names else None, lang)
    return choices, notes


def present(request: dict[str, Any], lang: str) -> dict[str, Any]:
    """Display-ready results of one calculator for the typed form values, in `lang`."""
    lang = strings.lang_or_default(lang)
    spec = calculators.calculator(str(request.get("calculator")))
    values = spec.defaults()
    given = request.get("values") or {}
    values.update({k: str(v) for k, v in given.items() if k in values and v is not None})
    unknown = [str(k) for k in (request.get("unknown") or []) if str(k) not in values]
    link_errors, link_notes = _link_errors(spec, values, unknown,
                                           lang_state.link_facts(request.get("link")), lang)
    mode = spec.mode(values.get("mode"))
    typed, parse_errors = _typed(spec, values, lang)
    responses: dict[str, Any] = {}
    sent: dict[str, dict[str, Any]] = {}   # the params of each request computed
    # every other refused input of a refused request, each next to its field (QA pass E,
    # item 8: a link with several bad values named only the first)
    others: list[CalcError] = []
    for req in mode.requests:
        failed = sorted(_used(req, typed) & set(parse_errors))
        if link_errors:
            responses[req.id] = {"schema_version": api.SCHEMA_VERSION, "ok": False,
                                 "kind": req.kind, "error": link_errors[0].as_dict()}
        elif failed:
            error = parse_errors[failed[0]]
            responses[req.id] = {"schema_version": api.SCHEMA_VERSION, "ok": False,
                                 "kind": req.kind, "error": error.as_dict()}
        else:
            sent[req.id] = _params(req, typed)
            responses[req.id] = api.run({"schema_version": api.SCHEMA_VERSION, "kind": req.kind,
                                         "params": sent[req.id]})
        if not responses[req.id].get("ok"):
            others += [parse_errors[name] for name in failed]
            refused = {e.field for e in link_errors} | set(failed) | {
                str(responses[req.id]["error"].get("field"))}
            others += _other_errors(req, typed, refused)
    kinds = {req.id: req.kind for req in mode.requests}
    blocked = trust.not_fitting(responses, kinds)
    responses = _gate_responses(responses, blocked)
    labels = strings.result_labels(lang)
    outputs = []
    for out in mode.outputs:
        response = responses.get(out.request)
        result = response["result"] if response and response.get("ok") else {}
        value = result.get(out.field)
        unit = units.result_unit(out.field)
        text = value_text(value, unit, lang)
        basis = None
        if response is not None and not response.get("ok"):
            # refused inputs: a visible placeholder, never a blank (QA pass E, item 5)
            text = trust.text(lang, "not_computed")
        elif value is None:
            text = ((trust.text(lang, "not_shown_no_fit")
                     if trust.gated(out.field, out.request, blocked) else None)
                    or missing_text(response, lang) or text)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            text, basis = trust.band_text(text, result, out.field, unit, lang)
        outputs.append({"field": out.field, "request": out.request, "unit": unit,
                        "label": labels.get(out.field, out.field), "text": text,
                        "value": units.raw_value(value), "basis": basis})
    errors: list[dict[str, Any]] = []
    seen = set()
    every: list[dict[str, Any]] = [
        *(r["error"] for r in responses.values() if not r.get("ok")),
        *(e.as_dict() for e in [*link_errors[1:], *others])]
    for refusal in every:   # each refused input gets its message, not only the first
        ident = (refusal.get("field"), refusal.get("key"))
        if ident in seen or (refusal.get("field") in {e["field"] for e in errors}
                             and refusal.get("field") != "request"):
            continue   # one message per field: the widget shows one next to each
        seen.add(ident)
        errors.append({"field": refusal.get("field"), "key": refusal.get("key"),
                       "message": error_message(refusal, lang)})
    used = set().union(*(_used(req, typed) for req in mode.requests)) | {"mode"}
    export_values = {name: text for name, text in values.items()
                     if name in used and text != "" and name not in parse_errors
                     and not link_errors}
    choices, choice_notes = _choices(spec, values, lang)
    field_names = tuple(f.name for f in spec.fields)
    shown = {
        "calculator": spec.name,
        "lang": lang,
        "mode": mode.id,
        "values": values,
        # ux (issue 14): the same inputs as each language's page reads them (language switcher)
        "values_by_lang": lang_state.values_by_lang(
            values, typed, set(parse_errors) | {str(e["field"]) for e in errors}),
        "ok": bool(responses.get("main", {}).get("ok")),
        "outputs": outputs,
        "errors": errors,
        "derivation": derivation_rows(responses, lang),
        "chart": charts.chart(mode.chart, responses, lang, instance_kinds()),
        "responses": responses,
        "verdict": trust.verdict(responses, blocked, field_names, lang, sent),
        "notes": [*link_notes, *trust.notes(responses, blocked, lang),
                  *_config_notes(typed, responses, lang), *choice_notes],
        "choices": choices,
        "export_values": export_values,
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
