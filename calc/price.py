"""Price: $/hour, $/month, $ for a duration, and normalised $/chip-hour, $/GiB-hour, $/PFLOP-hour.

A missing price is never a number: usd fields are None and ``price_missing_reason`` holds a key
("no_price_record" when the data has no row, "not_published" when the row says so).
The dense-BF16 peak used for $/PFLOP-hour is the chip headline (as AWS / the vendor state it).
"""

from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any

from . import data
from .derivation import Derivation
from .errors import CalcError
from .flops import headline_peak_flops_per_s
from .specs import InstanceSpec
from .units import BYTES_PER_GIB, FLOPS_PER_PFLOP

DEFAULT_REGION = "us-east-1"
DEFAULT_PRICE_KIND = "on-demand"
NO_PRICE_RECORD = "no_price_record"
NOT_PUBLISHED = "not_published"


PRICE_KINDS = ("on-demand", "ri-effective", "capacity-block")
# when the asked kind has no rate: the other published kinds, most comparable first
FALLBACK_ORDER = ("on-demand", "capacity-block", "ri-effective")


@dataclass(frozen=True, slots=True)
class HourlyPrice:
    usd_per_hour: float | None
    missing_reason: str | None     # key, or None when priced
    missing_note: str | None       # the data's English reason, if any
    as_of: str | None
    kind_used: str | None = None   # the price kind whose rate is used (None: no rate)
    region_used: str | None = None
    fallback_reason: str | None = None  # key: why kind/region differ from the request
    sources: tuple[str, ...] = ()


def _rows(instance_id: str) -> list[dict[str, Any]]:
    return [p for p in data.records("prices") if p.get("instance") == instance_id]


def _rate(row: dict[str, Any]) -> float | None:
    value = row.get("usd_per_hour")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _newest(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    return max(rows, key=lambda p: str(p.get("as_of", ""))) if rows else None


def _priced(row: dict[str, Any], fallback_reason: str | None, note: str | None) -> HourlyPrice:
    return HourlyPrice(
        usd_per_hour=_rate(row), missing_reason=None, missing_note=note,
        as_of=str(row.get("as_of", "")), kind_used=str(row.get("kind")),
        region_used=str(row.get("region")), fallback_reason=fallback_reason,
        sources=tuple(str(s) for s in row.get("sources", [])),
    )


def hourly_price(
    instance_id: str, region: str, kind: str = DEFAULT_PRICE_KIND, *, fallback: bool = True
) -> HourlyPrice:
    """hourly_price_uncached, kept per argument set until the data is reset (a calculator asks
    for the same rates at every input change; compare asks for every instance's)."""
    return _hourly_price(instance_id, region, kind, fallback)


@lru_cache(maxsize=4096)
def _hourly_price(instance_id: str, region: str, kind: str, fallback: bool) -> HourlyPrice:
    return hourly_price_uncached(instance_id, region, kind, fallback=fallback)


data.on_reset(_hourly_price.cache_clear)


def hourly_price_uncached(
    instance_id: str, region: str, kind: str = DEFAULT_PRICE_KIND, *, fallback: bool = True
) -> HourlyPrice:
    """The rate of ``kind`` in ``region``; when that has none and ``fallback`` is on, the newest
    published rate of another kind in the same region, else of the same kind in another region,
    else of another kind in another region, labelled by ``kind_used``, ``region_used`` and
    ``fallback_reason`` (``price_kind_fallback`` | ``price_region_fallback`` |
    ``price_kind_and_region_fallback``). No published rate anywhere: usd None and a reason."""
    known = data.regions()
    if region not in known:
        raise CalcError("region", "unknown_region", {"value": region, "allowed": known})
    rows = _rows(instance_id)
    asked = _newest([p for p in rows if p.get("region") == region and p.get("kind") == kind])
    if asked is not None and _rate(asked) is not None:
        return _priced(asked, None, None)
    note = None if asked is None else str(asked.get("usd_per_hour_missing") or "not published")
    if fallback:
        order = [kind, *(k for k in FALLBACK_ORDER if k != kind)]
        priced = [p for p in rows if _rate(p) is not None]
        for same_region, reason in ((True, "price_kind_fallback"),
                                    (False, "price_region_fallback"),
                                    (False, "price_kind_and_region_fallback")):
            for other_kind in order:
                if same_region and other_kind == kind:
                    continue
                if reason == "price_region_fallback" and other_kind != kind:
                    continue
                if reason == "price_kind_and_region_fallback" and other_kind == kind:
                    continue
                found = _newest([
                    p for p in priced if p.get("kind") == other_kind
                    and (p.get("region") == region) == same_region
                ])
                if found is not None:
                    return _priced(found, reason, note)
    if asked is None:
        return HourlyPrice(None, NO_PRICE_RECORD, None, None)
    return HourlyPrice(
        None, NOT_PUBLISHED, note, str(asked.get("as_of", "")),
        sources=tuple(str(s) for s in asked.get("sources", [])),
    )


def price_formula(hourly: HourlyPrice, kind: str, region: str) -> str:
    """The derivation text of the hourly rate: which kind and region it is, fallback said."""
    if hourly.kind_used is None:
        return f"{kind} price, {region}: none published"
    text = f"{hourly.kind_used} price, {hourly.region_used}"
    if hourly.fallback_reason is not None:
        text += f" (no {kind} rate in {region})"
    return text


def price_fields(hourly: HourlyPrice) -> dict[str, Any]:
    """The price label fields every priced result carries (perf, train, compare rows)."""
    return {
        "price_kind_used": hourly.kind_used,
        "price_region_used": hourly.region_used,
        "price_fallback_reason": hourly.fallback_reason,
        "price_sources": list(hourly.sources),
        "price_missing_reason": hourly.missing_reason,
    }


def hours_per_month() -> float:
    return data.assumption_value("hours_per_month")


def accelerator_memory_gib(instance: InstanceSpec) -> float | None:
    per_chip = instance.chip.memory_bytes
    return None if per_chip is None else per_chip * instance.chip_count / BYTES_PER_GIB


def has_bf16(instance: InstanceSpec) -> bool:
    """The accelerator computes in BF16 (compute_dtypes in data/chips.toml; T4 and V100 do not)."""
    from .dtype_support import compute_dtypes

    listed = compute_dtypes(instance)
    return listed is None or "bf16" in listed


def bf16_peak_pflops(instance: InstanceSpec) -> float | None:
    """The published dense BF16 headline (a documented proxy is not used for $/PFLOP-hour)."""
    from .flops import peak_is_proxy

    if peak_is_proxy(instance, "bf16") is not None or not has_bf16(instance):
        return None
    try:
        _, peak = headline_peak_flops_per_s(instance, "bf16")
    except CalcError:
        return None
    return peak / FLOPS_PER_PFLOP


@dataclass(frozen=True, slots=True)
class PriceResult:
    instance: str
    region: str
    price_kind: str
    hours: float
    usd_per_hour: float | None
    usd_total: float | None
    usd_per_month: float | None
    usd_per_chip_hour: float | None
    usd_per_gib_hour: float | None
    usd_per_bf16_pflop_hour: float | None
    price_missing_reason: str | None
    price_missing_note: str | None
    peak_missing_reason: str | None
    price_as_of: str | None
    price_kind_used: str | None
    price_region_used: str | None
    price_fallback_reason: str | None
    price_sources: list[str]
    chip_count: int
    accelerator_memory_gib: float | None
    bf16_peak_pflops: float | None
    derivation: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _times(value: float | None, factor: float) -> float | None:
    return None if value is None else value * factor


def _per(value: float | None, divisor: float | None) -> float | None:
    return None if value is None or not divisor else value / divisor


def quote(
    instance: InstanceSpec,
    *,
    region: str = DEFAULT_REGION,
    hours: float = 1.0,
    kind: str = DEFAULT_PRICE_KIND,
    fallback: bool = True,
) -> PriceResult:
    steps = Derivation()
    hourly = hourly_price(instance.id, region, kind, fallback=fallback)
    usd_per_hour = steps.add(
        "usd_per_hour", price_formula(hourly, kind, region), hourly.usd_per_hour, "USD/h"
    )
    month = hours_per_month()
    usd_per_month = steps.add(
        "usd_per_month", f"$/hour × {month:g} h", _times(usd_per_hour, month), "USD"
    )
    usd_total = steps.add("usd_total", "$/hour × hours", _times(usd_per_hour, hours), "USD")
    per_chip = steps.add(
        "usd_per_chip_hour", "$/hour / chips", _per(usd_per_hour, instance.chip_count), "USD/h"
    )
    memory_gib = accelerator_memory_gib(instance)
    per_gib = steps.add(
        "usd_per_gib_hour", "$/hour / accelerator GiB", _per(usd_per_hour, memory_gib), "USD/h"
    )
    pflops = bf16_peak_pflops(instance)
    per_pflop = steps.add(
        "usd_per_bf16_pflop_hour", "$/hour / dense BF16 PFLOPS", _per(usd_per_hour, pflops),
        "USD/h",
    )
    return PriceResult(
        instance=instance.id,
        region=region,
        price_kind=kind,
        hours=hours,
        usd_per_hour=usd_per_hour,
        usd_total=usd_total,
        usd_per_month=usd_per_month,
        usd_per_chip_hour=per_chip,
        usd_per_gib_hour=per_gib,
        usd_per_bf16_pflop_hour=per_pflop,
        price_missing_reason=hourly.missing_reason,
        price_missing_note=hourly.missing_note,
        peak_missing_reason=(None if pflops is not None
                             else "peak_flops_missing" if has_bf16(instance) else "no_bf16"),
        price_as_of=hourly.as_of,
        price_kind_used=hourly.kind_used,
        price_region_used=hourly.region_used,
        price_fallback_reason=hourly.fallback_reason,
        price_sources=list(hourly.sources),
        chip_count=instance.chip_count,
        accelerator_memory_gib=memory_gib,
        bf16_peak_pflops=pflops,
        derivation=steps.as_list(),
    )
