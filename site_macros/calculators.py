"""The `calculator(name)` macro: a calculator widget with its first result prerendered.

The first result is computed at build time by `calc.api.run` for the default inputs (the same code
path the browser worker runs), so the page shows a real result before Python loads. The widget
carries its build-time config (runtime URLs, UI strings, field specs, the prerendered response) in a
<script type="application/json"> block; docs/assets/js/calc-widget.js makes it live.

Register with `calculators.register(env)` from site_macros/__init__.py.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from . import formatting
from .page import lang as page_lang

WIDGET_SCRIPT = "assets/js/calc-widget.js"
# inlined into the widget: one render-blocking request less on calculator pages
WIDGET_CSS = Path(__file__).resolve().parent.parent / "docs" / "assets" / "css" / "calc.css"
DTYPES = ("bf16", "fp16", "fp8", "int8", "int4", "fp32")
CUSTOM_MODEL = "custom"
ARCH_FIELDS = ("params", "layers", "hidden", "heads", "kv_heads", "head_dim", "intermediate",
               "vocab")


class CalculatorSpecError(ValueError):
    """The page asked for a calculator that does not exist or whose defaults do not compute."""


@dataclass(frozen=True, slots=True)
class Input:
    name: str
    control: str  # model | instance | region | dtype | choice | int | number
    default: str | int | float | None
    modes: tuple[str, ...] = ()  # empty: every mode
    optional: bool = False  # empty value → param omitted (e.g. tp = auto)
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    step: str = "1"


@dataclass(frozen=True, slots=True)
class Output:
    field: str
    unit: str  # bytes | int | bool | seconds | per_s | usd | flops | ratio | text
    request: str = "main"


@dataclass(frozen=True, slots=True)
class Request:
    id: str  # "main" or an extra request shown next to it
    kind: str
    params: tuple[str, ...]
    fixed: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class Mode:
    id: str
    requests: tuple[Request, ...]
    outputs: tuple[Output, ...]
    chart: str | None = None  # memory-breakdown | price-compare


@dataclass(frozen=True, slots=True)
class Calculator:
    name: str
    inputs: tuple[Input, ...]
    modes: tuple[Mode, ...]
    # published measurements to compare with, first one the engine can estimate is shown
    reference_measurements: tuple[str, ...] = ()


_MODEL_PARAMS = ("model",) + ARCH_FIELDS
REFERENCE_MEASUREMENTS = (
    "inf2-llama-2-70b-tp24-b1-128-128",
    "trn1-llama-2-70b-tp32-b1-128-128",
    "inf2-llama-3-8b-tp24-b1-128-3968",
    "trn1-llama-3-8b-tp32-b1-128-3968",
)

MEMORY = Calculator(
    name="memory",
    inputs=(
        Input("mode", "choice", "inference", choices=("inference", "training")),
        Input("model", "model", "llama-3.1-8b"),
        *(Input(n, "int", None, optional=True) for n in ARCH_FIELDS),
        Input("instance", "instance", "inf2.xlarge"),
        Input("dtype", "dtype", "bf16", modes=("inference",)),
        Input("batch", "int", 1, minimum=1),
        Input("seq_len", "int", 4096, minimum=1),
        Input("tp", "int", None, optional=True, minimum=1),
        Input("recipe", "recipe", "deepspeed", modes=("training",), optional=True),
        Input("zero", "choice", "1", modes=("training",), choices=("0", "1", "2", "3")),
        Input("recompute", "choice", "selective", modes=("training",),
              choices=("none", "selective", "full")),
        Input("count", "int", 1, modes=("training",), minimum=1),
        Input("dp", "int", None, modes=("training",), optional=True, minimum=1),
    ),
    modes=(
        Mode(
            "inference",
            requests=(Request("main", "memory",
                              _MODEL_PARAMS + ("instance", "dtype", "batch", "seq_len", "tp")),),
            outputs=(
                Output("fits", "bool"),
                Output("tp_degree", "int"),
                Output("min_tp_degree", "int"),
                Output("recommended_tp_degree", "int"),
                Output("per_core_bytes", "bytes"),
                Output("capacity_per_core_bytes", "bytes"),
                Output("headroom_per_core_bytes", "bytes"),
                Output("max_batch", "int"),
                Output("max_seq_len", "int"),
                Output("weights_bytes", "bytes"),
                Output("kv_cache_bytes", "bytes"),
                Output("activation_bytes", "bytes"),
                Output("overhead_bytes", "bytes"),
                Output("total_bytes", "bytes"),
                Output("cores_used", "int"),
                Output("cores_available", "int"),
            ),
            chart="memory-breakdown",
        ),
        Mode(
            "training",
            requests=(Request("main", "train_memory",
                              _MODEL_PARAMS + ("instance", "batch", "seq_len", "tp", "recipe",
                                               "zero", "recompute", "count", "dp")),),
            outputs=(
                Output("fits", "bool"),
                Output("per_device_bytes", "bytes"),
                Output("capacity_per_device_bytes", "bytes"),
                Output("headroom_per_device_bytes", "bytes"),
                Output("weights_bytes", "bytes"),
                Output("grads_bytes", "bytes"),
                Output("master_bytes", "bytes"),
                Output("optimizer_bytes", "bytes"),
                Output("activation_bytes", "bytes"),
                Output("overhead_bytes", "bytes"),
                Output("tp", "int"),
                Output("dp", "int"),
                Output("devices", "int"),
                Output("devices_available", "int"),
            ),
            chart="training-breakdown",
        ),
    ),
    reference_measurements=REFERENCE_MEASUREMENTS,
)

PERFORMANCE = Calculator(
    name="performance",
    inputs=(
        Input("mode", "choice", "inference", choices=("inference", "training")),
        Input("model", "model", "llama-3.1-8b"),
        *(Input(n, "int", None, optional=True) for n in ARCH_FIELDS),
        Input("instance", "instance", "inf2.48xlarge"),
        Input("dtype", "dtype", "bf16", modes=("inference",)),
        Input("batch", "int", 1, modes=("inference",), minimum=1),
        Input("input_len", "int", 128, modes=("inference",), minimum=1),
        Input("output_len", "int", 128, modes=("inference",), minimum=1),
        Input("tp", "int", None, modes=("inference",), optional=True, minimum=1),
        Input("count", "int", 1, modes=("training",), minimum=1),
        Input("tokens", "int", 10_000_000_000, modes=("training",), minimum=1),
        Input("seq_len", "int", 4096, modes=("training",), minimum=1),
        Input("mfu", "number", None, modes=("training",), optional=True, step="0.01"),
    ),
    modes=(
        Mode(
            "inference",
            requests=(Request("main", "perf",
                              _MODEL_PARAMS + ("instance", "dtype", "batch", "input_len",
                                               "output_len", "tp")),),
            outputs=(
                Output("ttft_s", "seconds"),
                Output("tpot_s", "seconds"),
                Output("output_tokens_per_s", "per_s"),
                Output("output_tokens_per_s_per_replica", "per_s"),
                Output("replicas", "int"),
                Output("prefill_bound", "text"),
                Output("decode_bound", "text"),
                Output("usd_per_million_output_tokens", "usd"),
            ),
        ),
        Mode(
            "training",
            requests=(Request("main", "train",
                              _MODEL_PARAMS + ("instance", "count", "tokens", "seq_len", "mfu")),),
            outputs=(
                Output("total_flops", "flops"),
                Output("peak_flops_per_s", "flops"),
                Output("mfu", "ratio"),
                Output("tokens_per_s", "per_s"),
                Output("time_s", "seconds"),
                Output("cost_usd", "usd"),
            ),
        ),
    ),
    reference_measurements=REFERENCE_MEASUREMENTS,
)

PRICE = Calculator(
    name="price",
    inputs=(
        Input("instance", "instance", "trn1.32xlarge"),
        Input("region", "region", "us-east-1"),
        Input("hours", "number", 730, minimum=0, step="any"),
        Input("model", "model", "llama-3.1-8b"),
        Input("batch", "int", 8, minimum=1),
        Input("input_len", "int", 128, minimum=1),
        Input("output_len", "int", 128, minimum=1),
        Input("tokens", "int", 10_000_000_000, minimum=1),
        Input("count", "int", 1, minimum=1),
    ),
    modes=(
        Mode(
            "default",
            requests=(
                Request("main", "price", ("instance", "region", "hours")),
                Request("tokens", "perf",
                        ("model", "instance", "region", "batch", "input_len", "output_len"),
                        fixed=(("dtype", "bf16"),)),
                Request("run", "train", ("model", "instance", "region", "count", "tokens"),
                        fixed=(("seq_len", 4096),)),
                Request("compare", "compare", ("region", "hours")),
            ),
            outputs=(
                Output("usd_per_hour", "usd"),
                Output("usd_total", "usd"),
                Output("usd_per_month", "usd"),
                Output("usd_per_chip_hour", "usd"),
                Output("usd_per_gib_hour", "usd"),
                Output("usd_per_bf16_pflop_hour", "usd"),
                Output("usd_per_million_output_tokens", "usd", request="tokens"),
                Output("cost_usd", "usd", request="run"),
                Output("time_s", "seconds", request="run"),
            ),
            chart="price-compare",
        ),
    ),
    reference_measurements=REFERENCE_MEASUREMENTS,
)

CALCULATORS: dict[str, Calculator] = {c.name: c for c in (MEMORY, PERFORMANCE, PRICE)}


# ---------------------------------------------------------------------------------------------
# Requests (the same shape the browser builds from the form)


def default_values(calc_spec: Calculator) -> dict[str, Any]:
    return {i.name: i.default for i in calc_spec.inputs}


def build_params(request: Request, values: dict[str, Any]) -> dict[str, Any]:
    """The api params for one request from the form values (mirrors calc-widget.js buildParams)."""
    params: dict[str, Any] = {}
    custom = values.get("model") == CUSTOM_MODEL
    for name in request.params:
        if name == "model" and custom:
            continue
        if name in ARCH_FIELDS and not custom:
            continue
        value = values.get(name)
        if value is None or value == "":
            continue
        params[name] = value
    params.update(dict(request.fixed))
    return params


def run_request(kind: str, params: dict[str, Any]) -> dict[str, Any]:
    from calc import api  # imported lazily: the engine is the site's dependency, not the hook's

    response: dict[str, Any] = api.run({"schema_version": 1, "kind": kind, "params": params})
    return response


# ---------------------------------------------------------------------------------------------
# Formatting of result values for the prerendered HTML (the JS mirrors these units)


def format_value(value: Any, unit: str, lang: str, strings: dict[str, Any]) -> str:
    result_strings = strings.get("result", {})
    if value is None:
        return str(result_strings.get("none", "—"))
    if unit == "bool":
        return str(result_strings.get("fits_yes" if value else "fits_no", value))
    if unit == "text":
        return str(value)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        return str(value)
    if unit == "bytes":
        return f"{formatting.number(value / 2**30, lang, decimals=2)} GiB"
    if unit == "seconds":
        if abs(value) < 1:
            return f"{formatting.number(value * 1000, lang, decimals=1)} ms"
        if abs(value) >= 86400:
            return f"{formatting.number(value / 86400, lang, decimals=1)} d"
        return f"{formatting.number(value, lang, decimals=2)} s"
    if unit == "usd":
        return formatting.usd(value, lang, decimals=2 if abs(value) >= 1 or value == 0 else 4)
    if unit == "per_s":
        return f"{formatting.number(value, lang, decimals=1)} /s"
    if unit == "flops":
        return f"{formatting.number(value / 1e15, lang, decimals=2)} PFLOP"
    if unit == "ratio":
        return formatting.percent(value, lang, decimals=1)
    return formatting.number(value, lang, decimals=0 if float(value).is_integer() else 2)


# Derivation steps ("show the math"): raw calc units -> readable units (calc-format.js
# formatStep mirrors this). (threshold, divisor, label) from the largest down.
BYTE_SCALES = ((2**30, 2**30, "GiB"), (2**20, 2**20, "MiB"), (2**10, 2**10, "KiB"))
FLOP_SCALES = ((1e18, 1e18, "EFLOP"), (1e15, 1e15, "PFLOP"), (1e12, 1e12, "TFLOP"),
               (1e9, 1e9, "GFLOP"))
FLOPS_SCALES = ((1e15, 1e15, "PFLOP/s"), (1e12, 1e12, "TFLOP/s"), (1e9, 1e9, "GFLOP/s"))
BANDWIDTH_SCALES = ((1e12, 1e12, "TB/s"), (1e9, 1e9, "GB/s"), (1e6, 1e6, "MB/s"))
STEP_SCALES = {"B": BYTE_SCALES, "FLOP": FLOP_SCALES, "FLOP/s": FLOPS_SCALES,
               "B/s": BANDWIDTH_SCALES}


def step_data_value(value: Any) -> str | None:
    """A step's raw value for data-value, written as JS's String(value) writes it."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return str(value)


def format_step(value: Any, unit: str, lang: str, strings: dict[str, Any]) -> str:
    """A derivation step's value with a readable unit in the page locale ("14.96 GiB")."""
    if value is None:
        return str(strings.get("result", {}).get("none", "—"))
    if isinstance(value, bool):
        return format_value(value, "bool", lang, strings)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        return f"{value} {unit}".strip()
    if unit in STEP_SCALES:
        for threshold, divisor, label in STEP_SCALES[unit]:
            if abs(value) >= threshold:
                return f"{formatting.number(value / divisor, lang, decimals=2)} {label}"
        return f"{formatting.number(value, lang, decimals=2)} {unit}"
    if unit == "s":
        if value != 0 and abs(value) < 1e-3:
            return f"{formatting.number(value * 1e6, lang, decimals=1)} µs"
        return format_value(value, "seconds", lang, strings)
    if unit == "USD":
        return format_value(value, "usd", lang, strings)
    if unit == "USD/h":
        return f"{format_value(value, 'usd', lang, strings)}/h"
    label = str(strings.get("unit", {}).get(unit, unit))
    digits = 0 if float(value).is_integer() else (1 if abs(value) >= 10 else 3)
    return f"{formatting.number(value, lang, decimals=digits)} {label}".strip()


def missing_text(response: dict[str, Any] | None, strings: dict[str, Any],
                 reasons: dict[str, str]) -> str | None:
    """'not published: <reason>' for a null figure whose result says why (mirrors the JS)."""
    if not response or not response.get("ok"):
        return None
    key = response["result"].get("price_missing_reason") or response["result"].get(
        "peak_missing_reason")
    if not key:
        return None
    if key == "not_published":
        return str(strings["result"]["not_published"])
    return f"{strings['result']['not_published']}: {reasons.get(key, key)}"


# ---------------------------------------------------------------------------------------------
# Rendering


def _i18n(lang: str, name: str) -> dict[str, Any]:
    from calc import data

    table: dict[str, Any] = data.i18n(lang, name)
    return table


def _root_prefix(env: Any) -> str:
    page = getattr(env, "page", None)
    url = str(getattr(page, "url", "") or "")
    depth = url.strip("/").count("/") + 1 if url.strip("/") else 0
    return "../" * depth


def _options(control: str, calc_spec: Calculator) -> list[dict[str, str]]:
    from calc import data

    if control == "model":
        return [{"value": m["id"], "label": str(m.get("name", m["id"]))}
                for m in data.records("models")]
    if control == "instance":
        return [{"value": i["id"], "label": i["id"], "group": str(i.get("kind", "neuron"))}
                for i in data.records("instances")]
    if control == "region":
        regions = sorted({str(p["region"]) for p in data.records("prices")})
        return [{"value": r, "label": r} for r in regions]
    if control == "recipe":
        from calc import training_memory

        return [{"value": r, "label": r} for r in sorted(training_memory.recipes())]
    if control == "dtype":
        return [{"value": d, "label": d} for d in DTYPES]
    return []


def _input_label(name: str, strings: dict[str, Any], errors_i18n: dict[str, Any]) -> str:
    own = strings.get("input", {}).get(name)
    if own:
        return str(own)
    return str(errors_i18n.get("input", {}).get(name, name))


def _reference(calc_spec: Calculator, lang: str, strings: dict[str, Any]) -> dict[str, Any] | None:
    """A published measurement next to this calculator's estimate for the same configuration."""
    from calc import data

    by_id = {m["id"]: m for m in data.records("measurements")}
    for measurement_id in calc_spec.reference_measurements:
        m = by_id.get(measurement_id)
        if m is None:
            continue
        params: dict[str, Any] = {k: m[k] for k in ("model", "instance", "tp", "batch", "input_len",
                                    "output_len", "dtype") if k in m}
        estimate = run_request("perf", params)
        if estimate.get("ok"):
            break
    else:
        return None
    rows = []
    for key, unit in (("ttft_s", "seconds"), ("tpot_s", "seconds"),
                      ("output_tokens_per_s", "per_s")):
        if key not in m:
            continue
        est = estimate.get("result", {}).get(key) if estimate.get("ok") else None
        error = (est - m[key]) / m[key] if isinstance(est, (int, float)) and m[key] else None
        rows.append({
            "field": key,
            "measured": format_value(m[key], unit, lang, strings),
            "estimated": format_value(est, unit, lang, strings),
            "error": formatting.percent(error, lang, 1) if error is not None else "—",
        })
    sources = {src["id"]: src for src in data.records("sources")}
    cited = [{"title": str(sources[sid].get("title", sid)), "url": str(sources[sid].get("url", ""))}
             for sid in m.get("sources", []) if sid in sources]
    return {"measurement": m, "rows": rows, "sources": cited}


def render(name: str, env: Any) -> str:
    calc_spec = CALCULATORS.get(name)
    if calc_spec is None:
        raise CalculatorSpecError(f"unknown calculator {name!r}; known: {sorted(CALCULATORS)}")
    lang = page_lang(env)
    strings = _i18n(lang, "calculators")
    errors_i18n = _i18n(lang, "errors")
    steps_i18n = _i18n(lang, "steps")
    values = default_values(calc_spec)
    mode = next(
        (m for m in calc_spec.modes if m.id == values.get("mode")), calc_spec.modes[0]
    )
    responses: dict[str, Any] = {}
    for request in mode.requests:
        response = run_request(request.kind, build_params(request, values))
        if request.id == "main" and not response.get("ok"):
            raise CalculatorSpecError(f"{name}: defaults do not compute: {response.get('error')}")
        responses[request.id] = response

    runtime = (getattr(env, "conf", None) or {}).get("extra", {}).get("calc_runtime")
    if runtime is None:
        raise CalculatorSpecError("hooks/runtime_assets.py is not registered in mkdocs.yml hooks")
    root = _root_prefix(env)
    config = {
        "name": calc_spec.name,
        "lang": lang,
        "pyodideUrl": root + runtime["pyodide_dir"],
        "wheelUrl": root + runtime["wheel_path"],
        "chartUrl": root + runtime["chart_path"],
        "inputs": [
            {"name": i.name, "control": i.control, "default": i.default, "modes": list(i.modes),
             "optional": i.optional, "arch": i.name in ARCH_FIELDS}
            for i in calc_spec.inputs
        ],
        "modes": [
            {
                "id": m.id,
                "chart": m.chart,
                "requests": [{"id": r.id, "kind": r.kind, "params": list(r.params),
                              "fixed": dict(r.fixed)} for r in m.requests],
                "outputs": [{"field": o.field, "unit": o.unit, "request": o.request}
                            for o in m.outputs],
            }
            for m in calc_spec.modes
        ],
        "defaults": values,
        "archFields": list(ARCH_FIELDS),
        "instanceKinds": {o["value"]: o["group"] for o in _options("instance", calc_spec)},
        "strings": strings,
        "errors": errors_i18n.get("error", {}),
        "fieldLabels": {**errors_i18n.get("input", {}), **strings.get("input", {})},
        "steps": steps_i18n.get("step", {}),
        "reasons": steps_i18n.get("reason", {}),
        "bounds": steps_i18n.get("bound", {}),
        "prerendered": {"mode": mode.id, "values": values, "responses": responses},
    }
    template = _template_env().get_template("partials/calculator.html")
    html = template.render(
        calc=calc_spec,
        mode=mode,
        lang=lang,
        values=values,
        responses=responses,
        strings=strings,
        steps=steps_i18n.get("step", {}),
        fmt_step=lambda value, unit: format_step(value, unit, lang, strings),
        step_value=step_data_value,
        result_labels={**steps_i18n.get("step", {}), **steps_i18n.get("field", {})},
        missing=lambda response: missing_text(response, strings, steps_i18n.get("reason", {})),
        input_label=lambda n: _input_label(n, strings, errors_i18n),
        options=lambda control: _options(control, calc_spec),
        fmt=lambda value, unit: (steps_i18n.get("bound", {}).get(value, value) if unit == "text"
                                 else format_value(value, unit, lang, strings)),
        reference=_reference(calc_spec, lang, strings),
        chart_height=_chart_height(mode, responses),
        config_json=json.dumps(config, ensure_ascii=False, default=str).replace("</", "<\\/"),
        script_url=root + WIDGET_SCRIPT,
        css_text=_widget_css(),
    )
    return "\n".join(line for line in html.splitlines() if line.strip())


def _widget_css() -> str:
    return " ".join(WIDGET_CSS.read_text(encoding="utf-8").split()).replace("</", "<\\/")


CHART_MIN_HEIGHT_PX = 180
CHART_ROW_PX = 28
CHART_PADDING_PX = 90


def chart_height_px(rows: int) -> int:
    """Height reserved for a horizontal bar chart (calc-chart.js uses the same rule): no layout
    shift when the chart is drawn."""
    return max(CHART_MIN_HEIGHT_PX, rows * CHART_ROW_PX + CHART_PADDING_PX)


def _chart_height(mode: Mode, responses: dict[str, Any]) -> int:
    if mode.chart == "price-compare":
        compare = responses.get("compare", {})
        rows = [r for r in compare.get("result", {}).get("rows", [])
                if isinstance(r.get("usd_per_hour"), (int, float))] if compare.get("ok") else []
        return chart_height_px(len(rows))
    if mode.chart == "memory-breakdown":
        return chart_height_px(2)
    return chart_height_px(1)


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
