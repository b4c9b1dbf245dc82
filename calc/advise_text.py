"""Plain-text CLI summary of advise / advise_train results (English; the site uses the
presentation layer), and the CLI's text of dollars, durations and GiB (calc.cli uses it too): a
non-zero number never reads as a bare zero ("$0.0000", "0.00 µs")."""

import math
from typing import Any

# units of a duration below 1 s: (unit, smallest value shown in it, factor); below: ns
_SUBSECOND = (("ms", 1e-3, 1e3), ("µs", 1e-6, 1e6))


def significant(value: float, digits: int = 3) -> str:
    """A non-zero number in ``digits`` significant digits: fixed-point down to 10^-6
    ("0.0000493"), an exponent below ("4.93e-08")."""
    if abs(value) < 1e-6:
        return f"{value:.{digits - 1}e}"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    return f"{value:,.{decimals}f}"


def fixed(value: float, decimals: int) -> str:
    """``value`` grouped with ``decimals`` decimals; a non-zero value below the last decimal shown
    (which read "$0.0000" or "0.00 GiB") in significant digits instead: never a bare zero."""
    if value != 0 and abs(value) < 10.0 ** -decimals:
        return significant(value)
    return f"{value:,.{decimals}f}"


def usd(value: float) -> str:
    """Dollars with 4 decimals; a smaller non-zero amount in significant digits."""
    return f"${fixed(value, 4)}"


def duration(value: float, decimals: int = 2, second_decimals: int = 2) -> str:
    """Seconds in s, ms, µs or ns (the largest unit that reads at least 1; ns below that, down
    to 1 ps); never "0.00" for a non-zero time."""
    if value == 0 or abs(value) >= 1:
        return f"{fixed(value, second_decimals)} s"
    for unit, smallest, factor in _SUBSECOND:
        if abs(value) >= smallest:
            return f"{fixed(value * factor, decimals)} {unit}"
    nanoseconds = value * 1e9
    if abs(nanoseconds) >= 1:
        return f"{fixed(nanoseconds, decimals)} ns"
    if abs(nanoseconds) >= 1e-3:   # below 1 ns: significant digits ("0.00825 ns")
        return f"{significant(nanoseconds)} ns"
    return f"{significant(value)} s"   # below 1 ps: an exponent of seconds ("1.00e-300 s")


def gib(value: float) -> str:
    """Bytes in GiB with 2 decimals (a few KiB: significant digits, not "0.00 GiB")."""
    return f"{fixed(value / 2**30, 2)} GiB"


def _money(value: Any) -> str:
    return "n/a" if value is None else usd(value)


def _seconds(value: Any) -> str:
    if value is None:
        return "n/a"
    return duration(value, 1)   # a 1 µs target read "0.0 ms"


def _value(name: str, value: Any) -> str:
    if name.endswith("_s") and isinstance(value, float):
        return _seconds(value)
    if name.endswith("_bytes") and isinstance(value, int):
        return gib(value)
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


BEYOND_POSITIONS = ("the sequence is longer than the model's maximum positions ({max:,} tokens, "
                    "counting any RoPE scaling its config declares): the model was not trained "
                    "for it (it needs more RoPE scaling than declared, or a long-context variant)")


def fallback_notes(fallbacks: Any) -> list[str]:
    """One "note:" line per distinct checkpoint_fallback (a result's, or its compare rows' and
    advisor options'): the checkpoint's format that the chip does not keep, and what is used."""
    lines: list[str] = []
    for fallback in fallbacks:
        if not isinstance(fallback, dict):
            continue
        part = "routed experts" if fallback.get("part") == "experts" else "weights"
        if fallback.get("part") != "downcast":
            line = (f"note: the checkpoint stores its {part} in {fallback.get('checkpoint')}, "
                    f"which no serving framework keeps on {fallback.get('chip')}: they are "
                    f"loaded, sized and timed in {fallback.get('used')}")
        else:
            line = (f"note: the checkpoint stores its weights in {fallback.get('checkpoint')}; "
                    f"serving frameworks load it in {fallback.get('used')} unless told "
                    f"otherwise (vLLM dtype auto), so it is sized and timed in "
                    f"{fallback.get('used')} (--dtype {fallback.get('checkpoint')} sizes it as "
                    f"stored)")
        if line not in lines:
            lines.append(line)
    return lines


def summary(kind: str, result: dict[str, Any], limit: int = 15) -> str:
    lines: list[str] = []
    if kind == "advise":
        lines.append(f"ranked by {result['ranked_by']}; {len(result['options'])} options")
        for option in result["options"][:limit]:
            lines.append(
                f"{option['instance']:<24} {option.get('dtype') or '-':<6}"
                f" tp={option['tp_degree']:<3} batch={option['batch']:<4}"
                f" x{option['instance_count']:<4} TTFT {_seconds(option['ttft_s'])}"
                f"  TPOT {_seconds(option['tpot_s'])}"
                f"  {fixed(option['output_tokens_per_s'], 0)} tok/s"
                f"  {_money(option['usd_per_million_output_tokens'])}/1M"
                f"  {_money(option['fleet_usd_per_hour'])}/h"
            )
    else:
        lines.append(f"{len(result['options'])} options, ranked by cost")
        for option in result["options"][:limit]:
            lines.append(
                f"{option['instance']:<24} x{option['instance_count']:<5}"
                f" {fixed(option['time_h'], 1)} h  {_money(option['cost_usd'])}"
            )
    lines += _more(len(result["options"]), limit, "options")
    if result.get("message"):
        lines.append(f"note: {_reason(result['message'])}")
    lines += fallback_notes(o.get("checkpoint_fallback") for o in result["options"][:limit])
    if result.get("beyond_max_positions"):
        lines.append(f"note: {BEYOND_POSITIONS.format(max=result['beyond_max_positions'])}")
    rejected = result["rejected"]
    if rejected:
        lines.append(f"rejected: {len(rejected)}")
        for entry in rejected[:limit]:
            tp = entry.get("tp_degree")
            where = entry["instance"] + ("" if tp is None else f" tp={tp}")
            lines.append(f"  {where:<30} {_reason(entry['reason'])}")
        lines += [f"  {line}" for line in _more(len(rejected), limit, "rejected setups")]
    return "\n".join(lines)


def _more(total: int, shown: int, what: str) -> list[str]:
    """The line that says a list was cut (--json has all of it)."""
    if total <= shown:
        return []
    return [f"... and {total - shown:,} more {what} (--json lists all)"]
