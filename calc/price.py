"""Price: $/hour, $/month, $ for a duration, and normalised $/chip-hour, $/GiB-hour, $/PFLOP-hour.

A missing price is never a number: usd fields are None and ``price_missing_reason`` holds a key
("no_price_record" when the data has no row, "not_published" when the row says so).
The dense-BF16 peak used for $/PFLOP-hour is the chip headline (as AWS / the vendor state it).
"""

from dataclasses import dataclass, fields
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


@dataclass(frozen=True, slots=True)
class HourlyPrice:
    usd_per_hour: float | None
    missing_reason: str | None     # key, or None when priced
    missing_note: str | None       # the data's English reason, if any
    as_of: str | None


def hourly_price(instance_id: str, region: str, kind: str = DEFAULT_PRICE_KIND) -> HourlyPrice:
    known = data.regions()
    if region not in known:
        raise CalcError("region", "unknown_region", {"value": region, "allowed": known})
    found = data.price(instance_id, region, kind)
    if found is None:
        return HourlyPrice(None, NO_PRICE_RECORD, None, None)
    if found.usd_per_hour is None:
        return HourlyPrice(None, NOT_PUBLISHED, found.missing_reason, found.as_of)
    return HourlyPrice(found.usd_per_hour, None, None, found.as_of)


def hours_per_month() -> float:
    return data.assumption_value("hours_per_month")


def accelerator_memory_gib(instance: InstanceSpec) -> float | None:
    per_chip = instance.chip.memory_bytes
    return None if per_chip is None else per_chip * instance.chip_count / BYTES_PER_GIB


def bf16_peak_pflops(instance: InstanceSpec) -> float | None:
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
) -> PriceResult:
    steps = Derivation()
    hourly = hourly_price(instance.id, region, kind)
    usd_per_hour = steps.add(
        "usd_per_hour", f"{kind} price, {region}", hourly.usd_per_hour, "USD/h"
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
        peak_missing_reason=None if pflops is not None else "peak_flops_missing",
        price_as_of=hourly.as_of,
        chip_count=instance.chip_count,
        accelerator_memory_gib=memory_gib,
        bf16_peak_pflops=pflops,
        derivation=steps.as_list(),
    )
