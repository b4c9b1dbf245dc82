"""``python -m calc``: the CLI contract of issue 2. Every command goes through calc.api.run.

Exit status 0 with the result (``--json``: one JSON object, the api ``result``); invalid input:
exit status 2 and exactly one line on stderr.
"""

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from .errors import CalcError

EXIT_BAD_INPUT = 2

# option -> takes a value (False: a flag that sends true)
MODEL_OPTIONS: dict[str, bool] = {
    "model": True, "params": True, "active-params": True, "layers": True, "hidden": True,
    "heads": True, "kv-heads": True, "head-dim": True, "intermediate": True, "vocab": True,
    "experts": True, "active-experts": True, "architecture": True, "gated": False, "tied": False,
}
COMMANDS: dict[str, tuple[str, bool, dict[str, bool]]] = {
    # command: (api kind, takes model options, own options)
    "memory": ("memory", True, {"instance": True, "dtype": True, "kv-dtype": True, "batch": True,
                                "seq-len": True, "tp": True}),
    "perf": ("perf", True, {"instance": True, "dtype": True, "kv-dtype": True, "batch": True,
                            "input-len": True, "output-len": True, "tp": True, "region": True,
                            "price-kind": True}),
    "train": ("train", True, {"instance": True, "count": True, "tokens": True, "seq-len": True,
                              "mfu": True, "dtype": True, "region": True, "price-kind": True}),
    "train-memory": ("train_memory", True, {"instance": True, "count": True, "recipe": True,
                                            "zero": True, "recompute": True, "sp": False,
                                            "tp": True, "pp": True, "dp": True, "batch": True,
                                            "seq-len": True}),
    "price": ("price", False, {"instance": True, "region": True, "hours": True,
                               "price-kind": True}),
    "compare": ("compare", True, {"instances": True, "region": True, "hours": True,
                                  "price-kind": True, "dtype": True, "kv-dtype": True,
                                  "batch": True, "input-len": True, "output-len": True}),
}


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a usage problem as a CalcError instead of printing and exiting."""

    def error(self, message: str) -> NoReturn:
        raise CalcError("argv", "bad_argument", {"value": message})


def build_parser() -> OneLineParser:
    parser = OneLineParser(prog="python -m calc", description="Neuron Field Guide calculators")
    commands = parser.add_subparsers(dest="command", required=True)
    for command, (_, takes_model, options) in COMMANDS.items():
        sub = commands.add_parser(command)
        all_options = {**(MODEL_OPTIONS if takes_model else {}), **options}
        for option, takes_value in all_options.items():
            if takes_value:
                sub.add_argument(f"--{option}", dest=option.replace("-", "_"), metavar="VALUE")
            else:
                sub.add_argument(f"--{option}", dest=option.replace("-", "_"),
                                 action="store_const", const=True)
        sub.add_argument("--json", action="store_true", help="print the result as one JSON object")
    listing = commands.add_parser("list")
    listing.add_argument("what", choices=("models", "instances", "chips"))
    listing.add_argument("--json", action="store_true")
    return parser


def request_from_args(argv: Sequence[str]) -> tuple[dict[str, Any], bool]:
    namespace = vars(build_parser().parse_args(argv))
    command = namespace.pop("command")
    as_json = bool(namespace.pop("json"))
    if command == "list":
        return {"schema_version": 1, "kind": "list", "params": namespace}, as_json
    params = {name: value for name, value in namespace.items() if value is not None}
    return {"schema_version": 1, "kind": COMMANDS[command][0], "params": params}, as_json


def _format(value: Any, field: str) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool) or isinstance(value, str):
        return str(value)
    if field.endswith("_bytes") and isinstance(value, int | float):
        return f"{value / 2**30:,.2f} GiB"
    if field.endswith("_s") and not field.endswith("per_s") and isinstance(value, float):
        return f"{value * 1000:,.2f} ms" if value < 1 else f"{value:,.2f} s"
    if field.startswith("usd") or field.startswith("cost_usd"):
        return f"${value:,.4f}"
    if isinstance(value, float) or abs(value) >= 10**12:
        return f"{value:,.4g}"
    return f"{value:,}"


SUMMARY_FIELDS: dict[str, tuple[str, ...]] = {
    "memory": ("weights_bytes", "kv_cache_bytes", "activation_bytes", "overhead_bytes",
               "total_bytes", "tp_degree", "per_core_bytes", "capacity_per_core_bytes",
               "headroom_per_core_bytes", "fits", "head_padding", "min_tp_degree",
               "recommended_tp_degree",
               "max_batch", "max_seq_len", "kv_rule"),
    "perf": ("tp_degree", "ttft_s", "tpot_s", "output_tokens_per_s_per_replica", "replicas",
             "output_tokens_per_s", "prefill_bound", "decode_bound",
             "usd_per_million_output_tokens", "price_missing_reason"),
    "train": ("total_flops", "peak_flops_per_s", "mfu", "time_s", "time_h", "tokens_per_s",
              "cost_usd", "price_missing_reason"),
    "train_memory": ("weights_bytes", "grads_bytes", "master_bytes", "optimizer_bytes",
                     "activation_bytes", "overhead_bytes", "per_device_bytes",
                     "capacity_per_device_bytes", "headroom_per_device_bytes", "fits"),
    "price": ("usd_per_hour", "usd_total", "usd_per_month", "usd_per_chip_hour",
              "usd_per_gib_hour", "usd_per_bf16_pflop_hour", "price_missing_reason",
              "price_as_of"),
}


def summary(kind: str, result: dict[str, Any]) -> str:
    if kind == "list":
        return "\n".join(f"{item['id']:<28} {item['description']}" for item in result["items"])
    if kind == "compare":
        lines = []
        for row in result["rows"]:
            line = f"{row['instance']:<24} {_format(row['usd_per_hour'], 'usd_per_hour')}/h"
            if "output_tokens_per_s" in row:
                line += (f"  {_format(row['output_tokens_per_s'], 'x')} tok/s  "
                         f"{_format(row['usd_per_million_output_tokens'], 'usd')}/1M tokens")
            lines.append(line)
        return "\n".join(lines)
    return "\n".join(
        f"{field:<36} {_format(result.get(field), field)}" for field in SUMMARY_FIELDS[kind]
    )


def main(argv: Sequence[str] | None = None) -> int:
    from .api import run

    try:
        request, as_json = request_from_args(sys.argv[1:] if argv is None else argv)
    except CalcError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    response = run(request)
    if not response["ok"]:
        print(f"error: {response['error']['message']}", file=sys.stderr)
        return EXIT_BAD_INPUT
    text = (
        json.dumps(response["result"], ensure_ascii=False, allow_nan=False)
        if as_json
        else summary(response["kind"], response["result"])
    )
    try:
        print(text)
    except BrokenPipeError:  # e.g. piped into head
        sys.stderr.close()
    return 0
