"""What a calculator result may be trusted for, as display text (issues 9 and 17).

- the fit gate: a setup that does not fit shows no speed and no cost (`gate_outputs`), but the
  verdict, the reason and the nearest setups that fit as form values (`verdict`);
- the TP choice: which degree, why, and what the other objective would pick (`notes`);
- the error band and basis of an estimate ("12 ms, likely 9–16 ms", modelled/measured);
- the dtypes the chosen instance has (`dtype_choices`);
- typed numbers that cannot be a real input (too long, too large) are refused (`check_size`).
The engine fields read here are optional: an engine without them gives no note, never an error.
"""

from functools import lru_cache
from typing import Any

from .. import api, data
from ..errors import CalcError
from . import strings, units
from .calculators import CONFIG_FIELD
from .lang_state import plain_number
from .numbers import number

# result fields that are a speed or a cost: never shown for a setup that does not fit
SPEED_COST_FIELDS = frozenset({
    "ttft_s", "tpot_s", "e2e_s", "output_tokens_per_s", "output_tokens_per_s_per_replica",
    "usd_per_million_output_tokens", "prefill_bound", "decode_bound", "replicas",
    "bandwidth_bound_tokens_per_s", "compute_bound_tokens_per_s", "tokens_per_s", "time_s",
    "cost_usd",
})
SPEED_COST_KINDS = frozenset({"perf", "train"})
MAX_NUMBER_CHARS = 40  # a typed number longer than this is refused, not read
MAX_NUMBER_VALUE = 10**18  # the largest limit of any request param (tokens)


def text(lang: str, key: str, **params: Any) -> str:
    """A [trust] string of calculators.toml with its placeholders filled."""
    out = strings.ui(lang, "trust").get(key, key)
    for name, value in params.items():
        out = out.replace("{" + name + "}", str(value))
    return out


def check_size(text_value: str, value: int | float, field: str) -> None:
    """Refuse a typed number that is too long to read or too large for any input."""
    if isinstance(value, float) and value != value:
        raise CalcError(field, "must_be_finite", {"value": text_value[:20]})
    if abs(value) > MAX_NUMBER_VALUE or value in (float("inf"), float("-inf")):
        raise CalcError(field, "number_too_large", {"value": text_value[:20]})


def check_length(text_value: str, field: str) -> None:
    if len(text_value) > MAX_NUMBER_CHARS:
        raise CalcError(field, "number_too_long",
                        {"value": text_value[:12] + "…", "max": MAX_NUMBER_CHARS})


def not_fitting(responses: dict[str, Any], request_kinds: dict[str, str]) -> set[str]:
    """The ids of the speed/cost requests whose setup does not fit."""
    out = set()
    for rid, response in responses.items():
        if request_kinds.get(rid) not in SPEED_COST_KINDS or not response.get("ok"):
            continue
        if response["result"].get("fits") is False:
            out.add(rid)
    return out


def gated(field: str, request_id: str, blocked: set[str]) -> bool:
    return request_id in blocked and field in SPEED_COST_FIELDS


def _param_text(value: Any, lang: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return number(value, lang, 6)
    return str(value)


def _reason_text(reason: Any, lang: str) -> str | None:
    """A {key, params} reason of the engine in the language (steps.toml [reason])."""
    if not isinstance(reason, dict) or not reason.get("key"):
        return None
    key = str(reason["key"])
    template = strings.table(lang, "steps", "reason").get(key) or text(lang, key)
    for name, value in (reason.get("params") or {}).items():
        if isinstance(value, list):
            shown = ", ".join(_param_text(v, lang) for v in value)
        elif isinstance(value, int | float) and not isinstance(value, bool) and name.endswith(
                "_bytes"):
            shown = units.quantity(value, "B", lang)
        else:
            shown = _param_text(value, lang)
        template = template.replace("{" + str(name) + "}", shown)
    return template


def _form_text(value: Any, lang: str) -> str:
    """A param as the text its form field takes: a number in its plain form ("1000", Spanish
    "0,35"), which the page reads back as the same value (calc.display.lang_state)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return plain_number(value, lang)
    return _param_text(value, lang)


def _form_values(params: dict[str, Any], fields: tuple[str, ...], lang: str) -> dict[str, str]:
    """A suggestion's request params as the text the form fields take ("" = cleared). A param
    that is no typed text (the pasted config.json, sent as the parsed object) is left out: the
    form keeps what the reader pasted (QA pass E, item 1: it was rewritten as a Python repr)."""
    values = {name: _form_text(params[name], lang) for name in fields
              if name in params and params[name] is not None and name != CONFIG_FIELD
              and not isinstance(params[name], dict | list | tuple)}
    if "tp" in fields and "tp" not in values:
        values["tp"] = ""  # the given degree no longer applies
    return values


def _applicable(item: dict[str, Any], fields: tuple[str, ...],
                sent: dict[str, Any] | None) -> bool:
    """A suggestion the page can apply: it changes a field the page has, and (the request's
    params known) some field of the page differs from the setup computed. A suggestion of an
    input the page lacks (kv_dtype on the speed calculator) would recompute the same setup
    (QA pass E, item 2)."""
    if str(item.get("change", "")) not in fields:
        return False
    if sent is None:
        return True
    params = item.get("params") or {}
    return any(params.get(name) != sent.get(name) for name in fields)


def verdict(responses: dict[str, Any], blocked: set[str], fields: tuple[str, ...],
            lang: str, sent: dict[str, dict[str, Any]] | None = None) -> dict[str, Any] | None:
    """{fits, text, reason, suggestions: [{text, values}]} of the first request that does not
    fit (None when every setup fits). `sent`: each request's params as computed (a suggestion
    that changes none of the page's fields is not offered)."""
    for rid in responses:
        if rid not in blocked:
            continue
        result = responses[rid]["result"]
        suggestions = []
        for item in result.get("suggestions") or []:
            if not _applicable(item, fields, None if sent is None else sent.get(rid)):
                continue
            params = item.get("params") or {}
            label = strings.table(lang, "steps", "reason").get(
                str(item.get("reason_key")), str(item.get("change", "")))
            change = str(item.get("change", ""))
            value = item.get("value", params.get(change))
            if value is None:
                shown = ""
            elif isinstance(value, str):  # an option id: its label (names stay as they are)
                shown = strings.choice_label(change, value, lang)
            else:
                shown = _param_text(value, lang)
            suggestions.append({
                "change": change,
                "text": text(lang, "suggestion", label=label,
                             field=strings.field_labels(lang).get(change, change), value=shown),
                "values": _form_values(params, fields, lang),
            })
        return {"fits": False, "request": rid, "text": text(lang, "does_not_fit"),
                "reason": _reason_text(result.get("fit_reason"), lang),
                "suggestions": suggestions}
    return None


def notes(responses: dict[str, Any], blocked: set[str], lang: str) -> list[dict[str, str]]:
    """The TP choice, price fallback and peak proxy of the shown results, as sentences."""
    out: list[dict[str, str]] = []
    for rid, response in responses.items():
        if not response.get("ok") or rid in blocked:
            continue
        result = response["result"]
        tp_text = _reason_text(result.get("tp_reason"), lang)
        if tp_text:
            out.append({"key": "tp_reason", "text": text(lang, "tp_picked", reason=tp_text)})
        other = result.get("tp_other_objective")
        if isinstance(other, dict) and other.get("tp") is not None:
            objective = strings.choice_label("objective", str(other.get("objective")), lang)
            out.append({"key": "tp_other_objective",
                        "text": text(lang, "tp_other", objective=objective,
                                     tp=_param_text(other["tp"], lang))})
        fallback = result.get("price_fallback_reason")
        if fallback:
            kind = strings.choice_label("price_kind", str(result.get("price_kind_used")), lang)
            out.append({"key": "price_fallback",
                        "text": text(lang, "price_fallback", kind=kind,
                                     region=str(result.get("price_region_used") or ""),
                                     reason=strings.table(lang, "steps", "reason").get(
                                         str(fallback), str(fallback)))})
        if result.get("peak_is_proxy"):
            out.append({"key": "peak_proxy", "text": text(lang, "peak_proxy")})
        if result.get("tpot_is_lower_bound"):
            out.append({"key": "lower_bound", "text": text(lang, "lower_bound")})
        if result.get("no_training_framework"):
            out.append({"key": "no_training_framework",
                        "text": text(lang, "no_training_framework",
                                     chip=str(result["no_training_framework"]))})
        # the answer's own, and its compare rows' and advisor options' (one note per chip)
        for fallback_dtype in (result.get("checkpoint_fallback"),
                               *(item.get("checkpoint_fallback")
                                 for name in ("rows", "options")
                                 for item in (result.get(name) or []) if isinstance(item, dict))):
            if not isinstance(fallback_dtype, dict):
                continue
            out.append({"key": "checkpoint_fallback",
                        "text": text(lang, f"checkpoint_fallback_{fallback_dtype['part']}",
                                     checkpoint=strings.choice_label(
                                         "dtype", str(fallback_dtype["checkpoint"]), lang),
                                     used=strings.choice_label(
                                         "dtype", str(fallback_dtype["used"]), lang),
                                     chip=str(fallback_dtype["chip"]))})
        if result.get("beyond_max_positions"):
            out.append({"key": "beyond_positions",
                        "text": text(lang, "beyond_positions",
                                     max=_param_text(result["beyond_max_positions"], lang))})
    # one page, several requests (the price page's price and tokens): a note once
    return [dict(pair) for pair in dict.fromkeys(tuple(note.items()) for note in out)]


def basis_label(basis: Any, lang: str) -> str | None:
    """An estimate's basis ("measured" / "modelled") in the page language; None for anything
    else."""
    return text(lang, f"basis_{basis}") if basis in ("measured", "modelled") else None


def band_text(value_shown: str, result: dict[str, Any], field: str, unit: str,
              lang: str) -> tuple[str, str | None]:
    """("12 ms, likely 9–16 ms", basis text) when the result carries a band for the field."""
    band = (result.get("error_band") or {}).get(field)
    basis_text = basis_label(result.get("basis"), lang)
    if not (isinstance(band, list | tuple) and len(band) == 2
            and all(isinstance(v, int | float) for v in band)):
        return value_shown, basis_text
    low = units.quantity(band[0], unit, lang)
    high = units.quantity(band[1], unit, lang)
    return text(lang, "band", value=value_shown, low=low, high=high), basis_text


def framework_choices(instance: str | None, family: str | None, lang: str
                      ) -> list[dict[str, str]]:
    """The serving framework select: "" (automatic: the instance's default, named) and the
    inference frameworks that run on the instance's chip; with no instance (the advisor), those
    that run on some instance of the family. An unknown instance: every inference framework
    (the instance's own error is shown next to it)."""
    from .. import frameworks

    spec = None
    if instance:
        try:
            spec = data.instance(instance)
        except CalcError:
            spec = None
    if spec is not None:
        chips = {spec.chip.id}
        try:
            auto = text(lang, "framework_auto_named", name=strings.choice_label(
                "framework", frameworks.default_for(spec).id, lang))
        except CalcError:   # no serving framework runs here (Inferentia 1): said by perf
            auto = strings.choice_label("framework", "", lang)
    else:
        chips = {i.chip.id for i in map(data.instance, data.instance_ids())
                 if not family or family == "all" or i.kind == family}
        auto = text(lang, "framework_auto")
    offered = [fw for fw in frameworks.ids("inference")
               if any(frameworks.get(fw).supports(chip) for chip in chips)]
    if instance and spec is None:
        offered = frameworks.ids("inference")
    return [{"value": "", "label": auto}] + [
        {"value": fw, "label": strings.choice_label("framework", fw, lang)} for fw in offered]


def dtype_choices(instance: str | None, lang: str) -> tuple[list[str] | None, str | None]:
    """The dtypes the instance has (engine kind `dtypes`) and a sentence saying why; (None, None)
    when the engine cannot tell (every schema dtype is offered)."""
    if not instance:
        return None, None
    supported, note = _dtype_choices(instance, lang)
    return (None if supported is None else list(supported)), note


@lru_cache(maxsize=256)  # asked at every input change of a calculator with a dtype field
def _dtype_choices(instance: str, lang: str) -> tuple[tuple[str, ...] | None, str | None]:
    response = api.run({"schema_version": api.SCHEMA_VERSION, "kind": "dtypes",
                        "params": {"instance": instance}})
    if not response.get("ok"):
        return None, None
    result = response["result"]
    supported = tuple(str(d) for d in result.get("dtypes_supported") or [])
    if not supported:
        return None, None
    separator = "、" if lang == "ja" else ", "   # as Japanese lists everywhere
    return supported, text(lang, "dtype_note", instance=instance,
                           chip=str(result.get("chip", "")), dtypes=separator.join(supported))


data.on_reset(_dtype_choices.cache_clear)  # the instances and their chips are data
