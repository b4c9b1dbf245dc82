"""Plain-text CLI summary of advise / advise_train results (English; the site uses the
presentation layer)."""

from typing import Any


def _money(value: Any) -> str:
    return "n/a" if value is None else f"${value:,.4f}"


def _seconds(value: Any) -> str:
    if value is None:
        return "n/a"
    if value < 1e-3:   # a 1 µs target read "0.0 ms"
        return f"{value * 1e6:,.1f} µs"
    return f"{value * 1000:,.1f} ms" if value < 1 else f"{value:,.2f} s"


def _value(name: str, value: Any) -> str:
    if name.endswith("_s") and isinstance(value, float):
        return _seconds(value)
    if name.endswith("_bytes") and isinstance(value, int):
        return f"{value / 2**30:,.2f} GiB"
    if isinstance(value, float):
        return f"{value:,.4g}"
    return str(value)


def _reason(reason: dict[str, Any]) -> str:
    """The English label of the reason key (steps.toml [reason], else errors.toml [error]
    template) and its params."""
    from .data import i18n

    key = reason["key"]
    label = i18n("en", "steps").get("reason", {}).get(key)
    if label is None:
        label = i18n("en", "errors").get("error", {}).get(key, key)
        try:
            label = label.format(field="", **reason["params"])
        except (KeyError, IndexError, ValueError):
            pass
    values = ", ".join(f"{name} {_value(name, value)}" for name, value in reason["params"].items()
                       if value is not None)
    return f"{label}" + (f" ({values})" if values else "")


BEYOND_POSITIONS = ("the sequence is longer than the model's maximum positions ({max:,} tokens): "
                    "the model was not trained for it (it needs RoPE scaling or a long-context "
                    "variant)")


def summary(kind: str, result: dict[str, Any], limit: int = 15) -> str:
    lines: list[str] = []
    if kind == "advise":
        lines.append(f"ranked by {result['ranked_by']}; {len(result['options'])} options")
        for option in result["options"][:limit]:
            lines.append(
                f"{option['instance']:<24} tp={option['tp_degree']:<3} batch={option['batch']:<4}"
                f" x{option['instance_count']:<4} TTFT {_seconds(option['ttft_s'])}"
                f"  TPOT {_seconds(option['tpot_s'])}"
                f"  {option['output_tokens_per_s']:,.0f} tok/s"
                f"  {_money(option['usd_per_million_output_tokens'])}/1M"
                f"  {_money(option['fleet_usd_per_hour'])}/h"
            )
    else:
        lines.append(f"{len(result['options'])} options, ranked by cost")
        for option in result["options"][:limit]:
            lines.append(
                f"{option['instance']:<24} x{option['instance_count']:<5}"
                f" {option['time_h']:,.1f} h  {_money(option['cost_usd'])}"
            )
    if result.get("message"):
        lines.append(f"note: {_reason(result['message'])}")
    if result.get("beyond_max_positions"):
        lines.append(f"note: {BEYOND_POSITIONS.format(max=result['beyond_max_positions'])}")
    rejected = result["rejected"]
    if rejected:
        lines.append(f"rejected: {len(rejected)}")
        for entry in rejected[:limit]:
            tp = entry.get("tp_degree")
            where = entry["instance"] + ("" if tp is None else f" tp={tp}")
            lines.append(f"  {where:<30} {_reason(entry['reason'])}")
    return "\n".join(lines)
