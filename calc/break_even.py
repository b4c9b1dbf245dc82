"""Renting vs paying per token: the request rate at which an instance costs less than a per-token
API for the same model (data/api_prices.toml).

  API $ per request   a = (input_len · p_in + output_len · p_out) / 10⁶
  break-even rate     R* = $/hour of one instance / (3600 · a)          requests/s
  one instance serves at most R_max = output tokens/s per instance / output_len requests/s, and
  N instances cost N · $/hour for N · R_max, so renting beats the API at some rate iff R* ≤ R_max
  (``reachable``); at a given rate R the API costs 3600 · R · a per hour.
"""

from dataclasses import dataclass
from typing import Any

from . import data

SECONDS_PER_HOUR = 3600
TOKENS_PER_MILLION = 1_000_000


@dataclass(frozen=True, slots=True)
class ApiPrice:
    model: str
    provider: str
    offer: str
    region: str
    usd_per_million_input_tokens: float | None
    usd_per_million_output_tokens: float | None
    missing_reason: str | None
    as_of: str
    sources: list[str]

    @property
    def priced(self) -> bool:
        return (self.usd_per_million_input_tokens is not None
                and self.usd_per_million_output_tokens is not None)

    def usd_per_request(self, input_len: int, output_len: int) -> float | None:
        per_input, per_output = (self.usd_per_million_input_tokens,
                                 self.usd_per_million_output_tokens)
        if per_input is None or per_output is None:
            return None
        return (input_len * per_input + output_len * per_output) / TOKENS_PER_MILLION

    def as_dict(self) -> dict[str, Any]:
        return {
            "model": self.model, "provider": self.provider, "offer": self.offer,
            "region": self.region,
            "usd_per_million_input_tokens": self.usd_per_million_input_tokens,
            "usd_per_million_output_tokens": self.usd_per_million_output_tokens,
            "missing_reason": self.missing_reason, "as_of": self.as_of, "sources": self.sources,
        }


def _price(raw: dict[str, Any], field: str) -> float | None:
    value = raw.get(field)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def api_price(model_id: str) -> ApiPrice | None:
    """The per-token API price record for a model preset (the newest), or None."""
    matches = [r for r in data.records("api_prices") if r.get("model") == model_id]
    if not matches:
        return None
    raw = max(matches, key=lambda r: str(r.get("as_of", "")))
    usd_in = _price(raw, "usd_per_million_input_tokens")
    usd_out = _price(raw, "usd_per_million_output_tokens")
    reason = raw.get("usd_per_million_output_tokens_missing") or raw.get(
        "usd_per_million_input_tokens_missing")
    return ApiPrice(
        model=model_id, provider=str(raw.get("provider", "")), offer=str(raw.get("offer", "")),
        region=str(raw.get("region", "")), usd_per_million_input_tokens=usd_in,
        usd_per_million_output_tokens=usd_out,
        missing_reason=None if usd_in is not None and usd_out is not None else str(reason),
        as_of=str(raw.get("as_of", "")), sources=[str(s) for s in raw.get("sources", [])],
    )


def break_even_requests_per_s(usd_per_hour: float, usd_per_request: float) -> float:
    """R* = $/hour / (3600 · API $ per request)."""
    return usd_per_hour / (SECONDS_PER_HOUR * usd_per_request)


def api_usd_per_hour(requests_per_s: float, usd_per_request: float) -> float:
    return SECONDS_PER_HOUR * requests_per_s * usd_per_request
