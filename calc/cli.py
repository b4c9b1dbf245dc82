"""``python -m calc``: the CLI contract of issue 2. Every command goes through calc.api.run.

Exit status 0 with the result (``--json``: one JSON object, the api ``result``); invalid input:
exit status 2 and exactly one line on stderr.
"""

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, NoReturn

from .errors import CalcError

EXIT_BAD_INPUT = 2



@dataclass(frozen=True, slots=True)
class Option:
    """One ``--option``: its help text names the unit (if any) and the default."""

    help: str
    default: str                 # shown as "(default: ...)"; "required" for required inputs
    unit: str | None = None      # shown as "[unit]"
    takes_value: bool = True     # False: a flag that sends true
    metavar: str = "VALUE"

    def help_text(self) -> str:
        unit = f" [{self.unit}]" if self.unit else ""
        default = "(required)" if self.default == "required" else f"(default: {self.default})"
        return f"{self.help}{unit} {default}"


# every option of every subcommand; add a new one here and name it in COMMANDS
OPTIONS: dict[str, Option] = {
    # model: a preset or the architecture
    "model": Option("model preset id (see `list models`); or give the architecture options",
                    "none: give the architecture instead", metavar="ID"),
    "params": Option("total parameter count; 10000000000 = 10B", "computed from the shape",
                     "parameters", metavar="N"),
    "active-params": Option("parameters used per token (MoE: fewer than --params)",
                            "--params, or the active experts' share for MoE", "parameters",
                            metavar="N"),
    "layers": Option("transformer layers", "required with an architecture", "layers",
                     metavar="N"),
    "hidden": Option("hidden size (model width)", "required with an architecture", "elements",
                     metavar="N"),
    "heads": Option("attention (query) heads", "required with an architecture", "heads",
                    metavar="N"),
    "kv-heads": Option("key/value heads (GQA; equal to --heads for MHA)", "--heads", "heads",
                       metavar="N"),
    "head-dim": Option("width of one attention head", "--hidden / --heads", "elements",
                       metavar="N"),
    "intermediate": Option("MLP intermediate size (per expert for MoE)", "4 × --hidden",
                           "elements", metavar="N"),
    "vocab": Option("vocabulary size", "0 (no embeddings counted)", "tokens", metavar="N"),
    "experts": Option("MoE experts per layer", "0 (dense model)", "experts", metavar="N"),
    "active-experts": Option("experts used per token", "required when --experts > 0; else 0",
                             "experts", metavar="N"),
    "architecture": Option("decoder or encoder", "decoder", metavar="KIND"),
    "gated": Option("the MLP is gated (3 matrices, e.g. SwiGLU)", "off: 2 matrices",
                    takes_value=False),
    "tied": Option("input and output embeddings are shared", "off", takes_value=False),
    # issue 10: a Hugging Face config.json, or a custom MoE / attention shape (calc.custom_shape)
    "hf-config": Option("a Hugging Face config.json file (instead of --model or the "
                        "architecture options)", "none", metavar="PATH"),
    "expert-intermediate": Option("intermediate size of one routed expert (MoE)",
                                  "0: --intermediate", "elements", metavar="N"),
    "shared-experts": Option("shared (always active) experts per MoE layer", "0", "experts",
                             metavar="N"),
    "dense-layers": Option("dense (non-MoE) layers of an MoE model", "0", "layers",
                           metavar="N"),
    "attention": Option("attention type: gqa or mla (multi-head latent attention)", "gqa",
                        metavar="KIND"),
    "kv-lora-rank": Option("MLA latent width (kv_lora_rank)", "required with --attention mla",
                           "elements", metavar="N"),
    "qk-rope-head-dim": Option("MLA RoPE key width (qk_rope_head_dim), below --head-dim",
                               "required with --attention mla", "elements", metavar="N"),
    "local-layers": Option("sliding-window (local attention) layers", "0", "layers",
                           metavar="N"),
    "local-window": Option("sliding window of the local layers",
                           "required with --local-layers", "tokens", metavar="N"),
    # hardware and precision
    "instance": Option("EC2 instance type (see `list instances`)", "required", metavar="ID"),
    "instances": Option("comma-separated instance types", "all instances", metavar="IDS"),
    "dtype": Option("weight data type: fp32, bf16, fp16, fp8, int8, int4, or a checkpoint "
                    "format fp8_block128, mxfp4, int4_g32, int4_g64, int4_g128 (only those the "
                    "instance's accelerator has; see `dtypes --instance ID`)",
                    "the checkpoint's (e.g. fp8_block128), else bf16, or fp16 where the "
                    "accelerator has no bf16", metavar="DTYPE"),
    "expert-dtype": Option("routed-expert weight data type (e.g. mxfp4, int4_g128)",
                           "the checkpoint's, else --dtype", metavar="DTYPE"),
    "kv-dtype": Option("KV-cache data type: fp32, bf16, fp16, fp8, int8",
                       "the weight type if 16/32-bit, else bf16 (fp16 without bf16)",
                       metavar="DTYPE"),
    "tp": Option("tensor-parallel degree (cores or GPUs per model replica)",
                 "chosen for --objective among the degrees that fit", "cores", metavar="N"),
    "objective": Option("what the automatic TP degree optimises: latency (fastest request) "
                        "or cost (most tokens per instance-hour)",
                        "latency for perf, cost for compare", metavar="latency|cost"),
    # workload
    "batch": Option("concurrent sequences per model replica", "1", "sequences", metavar="N"),
    "seq-len": Option("sequence length (prompt + output)", "required", "tokens", metavar="N"),
    "input-len": Option("prompt length", "required (compare: 128)", "tokens", metavar="N"),
    "output-len": Option("generated tokens per request", "required (compare: 128)", "tokens",
                         metavar="N"),
    # serving (perf, issue 15)
    "framework": Option("serving or training framework (see `list frameworks`); it must run on "
                        "the instance's hardware", "the hardware's default framework",
                        metavar="ID"),
    "compiled-batch": Option("batch size the graph was compiled for (Neuron static shapes: a "
                             "smaller batch pays for the padding)", "--batch (no padding)",
                             "sequences", metavar="N"),
    "compiled-seq-len": Option("maximum sequence length the graph was compiled for (lengths "
                               "are padded to its buckets; it caps the top bucket)",
                               "none: a bucketing framework's power-of-two bucket above the "
                               "request (1,280 tokens run in the 2,048 bucket)",
                               "tokens", metavar="N"),
    # price
    "region": Option("AWS region of the price", "us-east-1", metavar="REGION"),
    "price-kind": Option("price type: on-demand, ri-effective or capacity-block; without a "
                         "published rate a labelled other kind or region is used",
                         "on-demand", metavar="KIND"),
    "price-fallback": Option("without a published rate of --price-kind in --region, use a "
                             "labelled other kind or region: true or false", "true",
                             metavar="BOOL"),
    "hours": Option("rental duration", "1", "hours", metavar="H"),
    # training
    "count": Option("number of instances", "1", "instances", metavar="N"),
    "tokens": Option("training tokens", "required", "tokens", metavar="N"),
    "mfu": Option("model FLOPs utilisation, a fraction in (0, 1]",
                  "the framework's fitted efficiency (data/assumptions.toml)", "fraction",
                  metavar="F"),
    "recipe": Option("optimizer memory recipe: eleutherai, llm_analysis, deepspeed, adam_8bit",
                     "deepspeed (20 B/param, the most of the four; also train's fit check)",
                     metavar="NAME"),
    "zero": Option("ZeRO stage 0-3", "1", "stage", metavar="N"),
    "recompute": Option("activation recomputation: none, selective or full",
                        "selective for train-memory; the framework's default for train",
                        metavar="MODE"),
    "sp": Option("sequence parallelism on", "off", takes_value=False),
    "pp": Option("pipeline-parallel degree", "1", "stages", metavar="N"),
    "dp": Option("data-parallel degree", "all remaining devices", "replicas", metavar="N"),
    # advisor (issue 11)
    "request-rate": Option("request rate to serve (not with --tokens-per-day)",
                           "none: rank by $ per 1M output tokens", "requests/s", metavar="R"),
    "tokens-per-day": Option("output tokens to serve per day (not with --request-rate)", "none",
                             "tokens", metavar="N"),
    "ttft-max": Option("time-to-first-token target", "none", "s", metavar="S"),
    "tpot-max": Option("time-per-output-token target", "none", "s", metavar="S"),
    "family": Option("accelerators searched: all, neuron or gpu", "all", metavar="FAMILY"),
    "max-batch": Option("largest batch (concurrent sequences per replica) searched", "256",
                        "sequences", metavar="N"),
    "pad-heads": Option("also offer TP degrees that do not divide the attention heads "
                        "(head padding)", "off", takes_value=False),
    "deadline-h": Option("training deadline (give it or --budget-usd)", "none", "hours",
                         metavar="H"),
    "budget-usd": Option("training budget (give it or --deadline-h)", "none", "USD",
                         metavar="USD"),
    "max-count": Option("most instances searched", "1024", "instances", metavar="N"),
}
# An option whose meaning or default differs in one command (what --help says must be true there)
_TRAINING_DTYPE = Option("training data type: fp32, bf16, fp16 or fp8 (int8 and int4 do not "
                         "train; only those the instance's accelerator has)",
                         "bf16, or fp16 where the accelerator has no bf16 (fp8 for an fp8 "
                         "checkpoint where the accelerator trains in fp8)", metavar="DTYPE")
_TRAINING_SEQ_LEN = Option("sequence length of one training sample", "required", "tokens",
                           metavar="N")
_ADVISE_PRICE_KIND = Option("price type: on-demand, ri-effective or capacity-block; an "
                            "instance without a published rate of this kind in --region is not "
                            "offered", "on-demand", metavar="KIND")
COMMAND_OPTIONS: dict[tuple[str, str], Option] = {
    ("memory", "tp"): Option("tensor-parallel degree (cores or GPUs per model replica)",
                             "the recommended degree: the smallest allowed one with 10 percent "
                             "headroom", "cores", metavar="N"),
    ("train-memory", "tp"): Option("tensor-parallel degree (cores or GPUs per model replica)",
                                   "1", "cores", metavar="N"),
    ("train", "seq-len"): _TRAINING_SEQ_LEN,
    ("train-memory", "seq-len"): _TRAINING_SEQ_LEN,
    ("advise-train", "seq-len"): _TRAINING_SEQ_LEN,
    ("train", "dtype"): _TRAINING_DTYPE,
    ("advise-train", "dtype"): _TRAINING_DTYPE,
    ("advise", "price-kind"): _ADVISE_PRICE_KIND,
    ("advise-train", "price-kind"): _ADVISE_PRICE_KIND,
}

MODEL_OPTIONS = ("model", "params", "active-params", "layers", "hidden", "heads", "kv-heads",
                 "head-dim", "intermediate", "vocab", "experts", "active-experts",
                 "architecture", "gated", "tied", "hf-config", "expert-intermediate",
                 "shared-experts", "dense-layers", "attention", "kv-lora-rank",
                 "qk-rope-head-dim", "local-layers", "local-window")
COMMANDS: dict[str, tuple[str, bool, tuple[str, ...], str]] = {
    # command: (api kind, takes model options, own options, help)
    "memory": ("memory", True, ("instance", "dtype", "expert-dtype", "kv-dtype", "batch",
                                "seq-len", "tp"),
               "inference memory: does the model fit, at which TP degree"),
    "perf": ("perf", True, ("instance", "dtype", "kv-dtype", "batch", "input-len",
                            "output-len", "tp", "objective", "region", "price-kind",
                            "framework", "compiled-batch", "compiled-seq-len"),
             "inference speed (TTFT, TPOT, tokens/s) and $ per 1M output tokens"),
    "train": ("train", True, ("instance", "count", "tokens", "seq-len", "mfu", "dtype",
                              "region", "price-kind", "framework", "recompute", "recipe"),
              "training time and cost"),
    "train-memory": ("train_memory", True, ("instance", "count", "recipe", "zero",
                                            "recompute", "sp", "tp", "pp", "dp", "batch",
                                            "seq-len"),
                     "training memory per device"),
    "price": ("price", False, ("instance", "region", "hours", "price-kind", "price-fallback"),
              "instance price per hour, month, chip, GiB and PFLOP"),
    "compare": ("compare", True, ("instances", "region", "hours", "price-kind", "dtype",
                                  "kv-dtype", "batch", "input-len", "output-len", "objective",
                                  "framework", "compiled-batch", "compiled-seq-len"),
                "price (and, with a model, speed and $/1M tokens) for several instances"),
    "dtypes": ("dtypes", False, ("instance",),
               "the data types an instance's accelerator has (the ones the calculators accept)"),
    # advisor (issue 11)
    "advise": ("advise", True, ("dtype", "kv-dtype", "input-len", "output-len", "request-rate",
                                "tokens-per-day", "ttft-max", "tpot-max", "region",
                                "price-kind", "family", "framework", "max-batch", "pad-heads"),
               "which instance: every instance x TP x batch x count that fits and meets the "
               "targets, cheapest first"),
    "advise-train": ("advise_train", True, ("tokens", "seq-len", "deadline-h", "budget-usd",
                                            "dtype", "mfu", "region", "price-kind", "family",
                                            "max-count", "recipe"),
                     "which instance to train on: cheapest type x count for a deadline or "
                     "budget"),
}
JSON_HELP = "print the result as one JSON object (the api result) (default: off: a summary)"
LIST_WHAT = ("models", "instances", "chips", "frameworks")
LIST_HELP = "list models, instances, chips or frameworks"


def terminal_columns(fallback: int = 80) -> int:
    """The columns shutil.get_terminal_size() reports ($COLUMNS, else stdout's terminal, else
    ``fallback``), without importing shutil (~4 ms of cold start: bz2, lzma, fnmatch)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    stdout = sys.__stdout__
    try:
        columns = 0 if stdout is None else os.get_terminal_size(stdout.fileno()).columns
    except (AttributeError, ValueError, OSError):   # closed, detached or not a terminal
        columns = 0
    return columns or fallback


def formatter_at_terminal_width() -> "partial[argparse.HelpFormatter]":
    """argparse's help formatter at the width it would compute itself (the terminal's columns
    less 2), read once for a whole parser: argparse makes a formatter for every option it adds,
    and reads the terminal each time."""
    return partial(argparse.HelpFormatter, width=terminal_columns() - 2)


_DIGITS = r"\d(?:_?\d)*"
# a negative number as float() reads it: "-1e3", "-.5", "-1_000", "-inf", "-nan"
NEGATIVE_NUMBER = re.compile(
    rf"^-(?:(?:{_DIGITS}(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})(?:[eE][+-]?{_DIGITS})?"
    r"|inf|infinity|nan)$", re.IGNORECASE)


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a usage problem as a CalcError instead of printing and exiting.
    Every negative number is a value ("--hours -1e3" reaches the range check, not "expected
    one argument"): argparse alone knows only "-1" and "-1.5" (no option looks like a number)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = NEGATIVE_NUMBER

    def error(self, message: str) -> NoReturn:
        raise CalcError("argv", "bad_argument", {"value": message})


def _brief(text: str, limit: int = 60) -> str:
    """A typed value as an error message quotes it: at most ``limit`` characters."""
    return text if len(text) <= limit else text[:limit - 3] + "..."


def given_twice(dest: str, values: tuple[str, str] | None = None) -> CalcError:
    """The one-line error of an option given twice (``values``: the two values typed)."""
    if values is None:
        return CalcError(dest, "flag_given_twice")
    return CalcError(dest, "given_twice",
                     {"value": f"{_brief(values[0])}, {_brief(values[1])}"})


class ValueOnce(argparse.Action):
    """``--name VALUE``, stored once. An empty (or all-whitespace) VALUE is refused, not read as
    absent (calc.inputs.present() treats "" as absent: right for the page's JSON, but on the
    command line the default would silently be used); so is a second --name, under any spelling
    (--name=VALUE, an abbreviation), instead of the last one winning."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        text = str(values)
        if not text.strip():
            raise CalcError(self.dest, "value_required")
        earlier = getattr(namespace, self.dest, None)
        if earlier is not None:
            raise given_twice(self.dest, (str(earlier), text))
        setattr(namespace, self.dest, text)


class FlagOnce(argparse.Action):
    """``--name`` without a value: stores True (else ``default``); given twice is refused like a
    value option given twice (one rule for every option)."""

    def __init__(self, option_strings: Sequence[str], dest: str, default: Any = None,
                 help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, const=True, default=default, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        if getattr(namespace, self.dest, self.default) is not self.default:
            raise given_twice(self.dest)
        setattr(namespace, self.dest, self.const)


def add_option(parser: argparse.ArgumentParser, name: str, option: Option) -> None:
    """One --name with its help (unit, default); the api param is the name with - → _."""
    dest = name.replace("-", "_")
    if option.takes_value:
        parser.add_argument(f"--{name}", dest=dest, action=ValueOnce, metavar=option.metavar,
                            help=option.help_text())
    else:
        parser.add_argument(f"--{name}", dest=dest, action=FlagOnce, help=option.help_text())


def add_model_options(sub: argparse.ArgumentParser) -> None:
    """The model options of any subcommand: --model, the architecture and shape fields and
    --hf-config PATH (request_from_args reads the file into params["hf_config"])."""
    for name in MODEL_OPTIONS:
        add_option(sub, name, OPTIONS[name])


def read_hf_config(path: str) -> Any:
    """The parsed JSON of --hf-config PATH; CalcError (one line, exit 2) when unreadable."""
    from .hf_config import MAX_CONFIG_CHARS

    try:
        with open(path, encoding="utf-8-sig") as handle:   # a byte-order mark is no content
            text = handle.read(MAX_CONFIG_CHARS + 1)   # /dev/zero or a weights file: stop
    except (OSError, UnicodeDecodeError) as error:
        raise CalcError("hf_config", "hf_config_unreadable",
                        {"value": f"{path}: {getattr(error, 'strerror', None) or error}"[:200]}
                        ) from None
    if len(text) > MAX_CONFIG_CHARS:
        raise CalcError("hf_config", "hf_config_too_large",
                        {"value": path[:160], "max": MAX_CONFIG_CHARS})
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise bad_json(path, f"line {error.lineno} column {error.colno}") from None
    except ValueError:  # an integer longer than int() converts (sys.get_int_max_str_digits)
        raise bad_json(path, f"a number has more than {sys.get_int_max_str_digits()} digits"
                       ) from None
    except RecursionError:
        raise bad_json(path, "arrays or objects nested too deeply") from None


def bad_json(path: str, where: str) -> CalcError:
    """The one-line error of a --hf-config file that json cannot read into Python values."""
    return CalcError("hf_config", "hf_config_bad_json", {"value": f"{path}: {where}"})


def is_command(name: str) -> bool:
    """A subcommand: one of COMMANDS, or "list"."""
    return name in COMMANDS or name == "list"


def build_parser(only: str | None = None) -> OneLineParser:
    """The parser of every subcommand, or of the one named ``only`` (a command of COMMANDS or
    "list": the same options, help and errors for it; the others' ~250 options are not built
    on every call)."""
    if only is not None and not is_command(only):
        raise ValueError(f"build_parser(only={only!r}): not a command")
    formatter = formatter_at_terminal_width()
    parser = OneLineParser(prog="python -m calc", description="Neuron Field Guide calculators",
                           formatter_class=formatter)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command, (_, takes_model, options, summary_help) in COMMANDS.items():
        if only is not None and command != only:
            continue
        sub = commands.add_parser(command, help=summary_help, description=summary_help,
                                  formatter_class=formatter)
        if takes_model:
            add_model_options(sub)
        for name in options:
            add_option(sub, name, COMMAND_OPTIONS.get((command, name), OPTIONS[name]))
        sub.add_argument("--json", action=FlagOnce, default=False, help=JSON_HELP)
    if only is None or only == "list":
        listing = commands.add_parser("list", help=LIST_HELP, description=LIST_HELP,
                                      formatter_class=formatter)
        listing.add_argument("what", choices=LIST_WHAT,
                             help="what to list: models, instances, chips or frameworks "
                                  "(required)")
        listing.add_argument("--json", action=FlagOnce, default=False, help=JSON_HELP)
    return parser


def request_from_args(argv: Sequence[str]) -> tuple[dict[str, Any], bool]:
    known = argv[0] if argv and is_command(argv[0]) else None
    namespace = vars(build_parser(only=known).parse_args(argv))
    command = namespace.pop("command")
    as_json = bool(namespace.pop("json"))
    if command == "list":
        return {"schema_version": 1, "kind": "list", "params": namespace}, as_json
    params = {name: value for name, value in namespace.items() if value is not None}
    if isinstance(params.get("hf_config"), str):
        params["hf_config"] = read_hf_config(params["hf_config"])
    return {"schema_version": 1, "kind": COMMANDS[command][0], "params": params}, as_json


PEAK_TEXT = {"peak_flops_missing": "the accelerator's peak FLOPS for this dtype is not published"}
MISSING_TEXT = {
    "no_price_record": "no price in the data",
    "not_published": "price not published",
}
FALLBACK_TEXT = {
    "price_kind_fallback": "no {asked} rate: {kind} rate used",
    "price_region_fallback": "no {asked} rate in this region: {region} rate used",
    "price_kind_and_region_fallback": "no {asked} rate: {kind} rate in {region} used",
}


def _format(value: Any, field: str) -> str:
    from .advise_text import duration, gib, usd  # here: a --json answer does not load it

    if value is None:
        return "-"
    if isinstance(value, dict) and "key" not in value:  # e.g. error_band: {field: [low, high]}
        return "; ".join(f"{name} {_format(part, name)}" for name, part in value.items())
    if isinstance(value, list) and len(value) == 2 and all(
            isinstance(part, int | float) and not isinstance(part, bool) for part in value):
        return " – ".join(_format(part, field) for part in value)  # a band [low, high]
    if isinstance(value, bool) or isinstance(value, str):
        return str(value)
    if isinstance(value, dict):
        return _reason(value)
    if isinstance(value, list):
        return ", ".join(str(item) for item in value) or "-"
    if field.endswith("_bytes") and isinstance(value, int | float):
        return gib(value)
    if field.endswith("_s") and not field.endswith("per_s") and isinstance(value, float):
        return duration(value)
    if field.startswith("usd") or field.startswith("cost_usd"):
        return usd(value)
    if isinstance(value, float) or abs(value) >= 10**12:
        return _plain(value)
    return f"{value:,}"


def _plain(value: float) -> str:
    """Four significant digits, grouped, without an exponent in the range people read
    ("11,420 tokens/s", not "1.142e+04")."""
    if value != 0 and not 1e-3 <= abs(value) < 1e15:
        return f"{value:.4g}"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:,.4g}"


def _reason(reason: dict[str, Any]) -> str:
    """A {"key", "params"} reason as one English line (the page renders it per language)."""
    params = reason.get("params", {})
    key = reason.get("key", "")
    if key in ("does_not_fit_at_tp", "does_not_fit_any_tp"):
        where = "at TP" if key == "does_not_fit_at_tp" else "at any TP; least at TP"
        return (f"needs {_format(params.get('per_core_bytes'), 'x_bytes')} per core {where} "
                f"{params.get('tp')}, {_format(params.get('capacity_per_core_bytes'), 'x_bytes')}"
                " usable")
    if key == "training_does_not_fit":
        return (f"needs at least {_format(params.get('per_device_bytes'), 'x_bytes')} per "
                f"device on {params.get('count')} instance(s), "
                f"{_format(params.get('capacity_per_device_bytes'), 'x_bytes')} usable")
    if key == "objective":
        return str(params)
    if key.startswith("tp_"):
        return f"{key} " + ", ".join(
            f"{name}={_format(value, name)}" for name, value in params.items()
            if name in ("tp", "objective", "e2e_s", "smallest_fitting_tp", "auto_tp"))
    if "objective" in reason:  # tp_other_objective
        return (f"{reason['objective']}: TP {reason.get('tp')}, e2e "
                f"{_format(reason.get('e2e_s'), 'e2e_s')}, "
                f"{_format(reason.get('output_tokens_per_s'), 'x')} tokens/s")
    return f"{key} {params}"


def price_text(result: dict[str, Any]) -> str:
    """Where the hourly rate comes from, or why there is none (never "n/a/h")."""
    if result.get("usd_per_hour") is None:
        reason = result.get("price_missing_reason") or "not_published"
        return MISSING_TEXT.get(str(reason), str(reason))
    text = f"{_format(result['usd_per_hour'], 'usd_per_hour')}/h"
    fallback = result.get("price_fallback_reason")
    if fallback:
        text += " (" + FALLBACK_TEXT.get(str(fallback), str(fallback)).format(
            asked=result.get("price_kind", "on-demand"), kind=result.get("price_kind_used"),
            region=result.get("price_region_used")) + ")"
    return text


SUMMARY_FIELDS: dict[str, tuple[str, ...]] = {
    "memory": ("dtype", "kv_dtype", "expert_dtype", "params", "active_params", "weights_bytes",
               "kv_cache_bytes",
               "kv_cache_per_core_bytes", "kv_bytes_per_token", "activation_bytes",
               "overhead_bytes",
               "total_bytes", "tp_degree", "per_core_bytes", "capacity_per_core_bytes",
               "headroom_per_core_bytes", "fits", "fit_reason", "head_padding", "min_tp_degree",
               "recommended_tp_degree",
               "max_batch", "max_seq_len", "kv_rule"),
    "perf": ("fits", "fit_reason", "framework", "dtype", "kv_dtype", "tp_degree", "tp_reason",
             "tp_other_objective", "ttft_s", "tpot_s",
             "output_tokens_per_s_per_replica", "replicas",
             "output_tokens_per_s", "output_tokens_per_s_per_user", "prefill_bound",
             "decode_bound", "peak_is_proxy", "usd_per_million_output_tokens",
             "error_band", "basis", "basis_measurement_id"),
    "train": ("fits", "fit_reason", "framework", "recompute", "total_flops", "peak_flops_per_s",
              "mfu", "time_s", "time_h", "tokens_per_s", "cost_usd", "error_band", "basis"),
    "train_memory": ("weights_bytes", "grads_bytes", "master_bytes", "optimizer_bytes",
                     "activation_bytes", "overhead_bytes", "per_device_bytes",
                     "capacity_per_device_bytes", "headroom_per_device_bytes", "fits"),
    "price": ("usd_per_hour", "usd_total", "usd_per_month", "usd_per_chip_hour",
              "usd_per_gib_hour", "usd_per_bf16_pflop_hour", "price_as_of"),
    "dtypes": ("instance", "compute_dtypes", "dtypes_supported", "kv_dtypes_supported",
               "default_dtype"),
}
PRICED = ("perf", "train", "price")
# text labels that say more than the field name (--json keeps the names)
TEXT_LABELS = {"peak_flops_per_s": "peak_flops_per_s (one instance)"}


def _suggestion_lines(result: dict[str, Any]) -> list[str]:
    return [f"{'suggestion':<36} {s['change']} = {s['value']}"
            for s in result.get("suggestions") or []]


def summary(kind: str, result: dict[str, Any]) -> str:
    from .advise_text import fallback_notes

    if kind == "list":
        return "\n".join(f"{item['id']:<28} {item['description']}" for item in result["items"])
    if kind in ("advise", "advise_train"):
        from .advise_text import summary as advise_summary

        return advise_summary(kind, result)
    if kind == "compare":
        lines = []
        for row in result["rows"]:
            line = f"{row['instance']:<24} {price_text(row)}"
            if "output_tokens_per_s" in row:
                if row.get("perf_error"):
                    params = dict(row.get("perf_error_params") or {})
                    why = CalcError(str(params.pop("field", "")), row["perf_error"], params)
                    line += f"  no estimate: {why}"
                elif not row.get("fits"):
                    line += "  does not fit"
                elif row.get("output_tokens_per_s") is None:   # fits, but no speed
                    why = row.get("speed_missing_reason")
                    line += (f"  TP {row['tp_degree']}  no speed: "
                             f"{PEAK_TEXT.get(str(why), str(why or 'not estimated'))}")
                else:
                    per_million = row["usd_per_million_output_tokens"]
                    line += (f"  TP {row['tp_degree']}  "
                             f"{_format(row['output_tokens_per_s'], 'x')} tokens/s  ")
                    line += ("$/1M tokens: no price" if per_million is None
                             else f"{_format(per_million, 'usd')}/1M tokens")
            lines.append(line)
        lines += fallback_notes(row.get("checkpoint_fallback") for row in result["rows"])
        return "\n".join(lines)
    lines = [
        f"{TEXT_LABELS.get(field, field):<36} {_format(result.get(field), field)}"
        for field in SUMMARY_FIELDS[kind]
        if field in result and not (field == "expert_dtype"
                                    and not result.get("expert_weights_bytes"))
    ]
    layout = result.get("training_layout")
    if isinstance(layout, dict):   # the layout train's fit and time are for
        lines.append(f"{'training_layout':<36} TP {layout.get('tp')} x PP {layout.get('pp')} x "
                     f"DP {layout.get('dp')}, ZeRO-{layout.get('zero')}, recompute "
                     f"{layout.get('recompute')}, {layout.get('recipe')} optimizer states"
                     f"{', sequence parallel' if layout.get('sp') else ''}")
    if result.get("no_training_framework"):
        lines.append(f"note: no training framework in this guide runs on "
                     f"{result['no_training_framework']}: these figures size the layout only")
    lines += fallback_notes([result.get("checkpoint_fallback")])
    if isinstance(layout, dict) and layout.get("devices") != layout.get("devices_available"):
        lines.append(f"note: the parallel layout (TP {layout.get('tp')} x PP {layout.get('pp')} "
                     f"x DP {layout.get('dp')}) uses {layout.get('devices'):,} of the "
                     f"{layout.get('devices_available'):,} devices; the others idle but are paid "
                     f"for")
    if result.get("beyond_max_positions"):  # said once, in words (--json has the field)
        from .advise_text import BEYOND_POSITIONS

        lines.append(f"note: {BEYOND_POSITIONS.format(max=result['beyond_max_positions'])}")
    if kind in PRICED:
        lines.append(f"{'price':<36} {price_text(result)}")
    if result.get("fits") is False and kind in ("perf", "train"):
        lines.insert(0, "does not fit: no speed and no cost (see the suggestions)")
    lines += _suggestion_lines(result)
    return "\n".join(lines)


def _naming_option(field: str, message: str) -> str:
    """The engine's message with the option it is about in front when it does not name it
    ("--expert-dtype: mxfp4 is not supported ..."): the same message names several fields."""
    flag = "--" + field.replace("_", "-")
    if not field or re.search(rf"(?<![\w-]){re.escape(field)}(?![\w-])", message) \
            or flag in message:
        return message
    return f"{flag}: {message}"


def config_note(config: Any) -> str:
    """The note line of a multimodal --hf-config (calc.hf_config.uncounted_parts), else ""."""
    from .hf_config import uncounted_parts

    parts = uncounted_parts(config)
    if not parts:
        return ""
    return (f"\nnote: this config.json is multimodal: the figures are for its language model "
            f"only; the vision encoder ({', '.join(parts)}) and its projector are not counted")


def main(argv: Sequence[str] | None = None) -> int:
    from .api import run

    try:
        request, as_json = request_from_args(sys.argv[1:] if argv is None else argv)
    except CalcError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    response = run(request)
    if not response["ok"]:
        failure = response["error"]
        print(f"error: {_naming_option(str(failure.get('field') or ''), failure['message'])}",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    text = (
        json.dumps(response["result"], ensure_ascii=False, allow_nan=False)
        if as_json
        else summary(response["kind"], response["result"])
        + config_note(request.get("params", {}).get("hf_config"))
    )
    try:
        print(text)
    except BrokenPipeError:  # e.g. piped into head
        sys.stderr.close()
    return 0
