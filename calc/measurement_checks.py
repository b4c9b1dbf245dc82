"""Internal consistency of a published inference measurement (perf, issue 15).

A serving benchmark publishes several figures of one run; they must agree with each other before
the run can score a model. Checked, each as measured / implied (1.0 = consistent):

  e2e     e2e_s  vs  ttft_s + (output_len − 1) · tpot_s
  rate    output_tokens_per_s  vs  request_throughput_per_s · output_len
  little  (closed loop, concurrency given) output_tokens_per_s  vs
          concurrency · output_len / request latency   (Little's law; request latency = e2e_s, or
          e2e_per_output_token_s · output_len as LLMPerf publishes it)

A row whose ratio is off by more than CONSISTENCY_TOLERANCE is kept as use = "reference" with a
use_note stating the ratio (data/measurements.toml header). Uses only the row's own figures, never
the model's estimate.
"""

from collections.abc import Mapping
from typing import Any

CONSISTENCY_TOLERANCE = 0.25


def _number(raw: Mapping[str, Any], name: str) -> float | None:
    value = raw.get(name)
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    return None


def ratios(raw: Mapping[str, Any]) -> dict[str, float]:
    """measured / implied for every check the row's published figures allow."""
    out: dict[str, float] = {}
    length = _number(raw, "output_len")
    if raw.get("kind", "inference") != "inference" or length is None:
        return out
    e2e = _number(raw, "e2e_s")
    ttft, tpot = _number(raw, "ttft_s"), _number(raw, "tpot_s")
    if e2e is not None and ttft is not None and tpot is not None:
        out["e2e"] = e2e / (ttft + (length - 1) * tpot)
    rate = _number(raw, "output_tokens_per_s")
    requests = _number(raw, "request_throughput_per_s")
    if rate is not None and requests is not None:
        out["rate"] = rate / (requests * length)
    latency = e2e
    per_token = _number(raw, "e2e_per_output_token_s")
    if latency is None and per_token is not None:
        latency = per_token * length
    concurrency = _number(raw, "concurrency")
    if (raw.get("mode") == "serving" and rate is not None and concurrency is not None
            and latency is not None):
        out["little"] = rate / (concurrency * length / latency)
    return out


def inconsistencies(raw: Mapping[str, Any]) -> dict[str, float]:
    """The checks whose ratio is off by more than the tolerance."""
    return {name: value for name, value in ratios(raw).items()
            if abs(value - 1.0) > CONSISTENCY_TOLERANCE}
