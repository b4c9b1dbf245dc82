"""Mark inference measurements whose own figures disagree (calc.measurement_checks) as
use = "reference" with a use_note stating the measured ratios; drops use_pending on them.

    PYTHONPATH=$PWD .venv/bin/python bench/mark_inconsistent.py [--write]
"""

import argparse
import re
import sys
import tomllib
from pathlib import Path

from calc.measurement_checks import CONSISTENCY_TOLERANCE, inconsistencies

PATH = Path(__file__).resolve().parents[1] / "data" / "measurements.toml"
CHECK_TEXT = {
    "e2e": "e2e_s / (ttft_s + (output_len − 1) · tpot_s)",
    "rate": "output_tokens_per_s / (request_throughput_per_s · output_len)",
    "little": "output_tokens_per_s / (concurrency · output_len / request latency) (Little's law)",
}


def note(bad: dict[str, float]) -> str:
    parts = "; ".join(f"{CHECK_TEXT[name]} = {value:.3f}" for name, value in bad.items())
    return (f"Inconsistent published figures: {parts} (tolerance ±{CONSISTENCY_TOLERANCE:.0%}); "
            "the run cannot score the model, shown for reference.")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    text = PATH.read_text(encoding="utf-8")
    records = tomllib.loads(text)["measurement"]
    marked = {r["id"]: inconsistencies(r) for r in records
              if inconsistencies(r) and not str(r.get("use_note", "")).startswith("Inconsistent")}
    blocks = re.split(r"(?m)^(?=\[\[)", text)
    for index, block in enumerate(blocks):
        found = re.search(r'(?m)^id = "([^"]+)"', block)
        if not block.startswith("[[measurement]]") or not found or found[1] not in marked:
            continue
        bad = marked[found[1]]
        block = re.sub(r'(?m)^use_pending = .*\n', "", block)
        block = re.sub(r'(?m)^use = .*$', 'use = "reference"', block)
        line = 'use_note = "' + note(bad).replace('"', '\\"') + '"'
        if re.search(r"(?m)^use_note = ", block):
            block = re.sub(r'(?m)^use_note = .*$', lambda _, text=line: text, block)
        else:
            block = re.sub(r'(?m)^(use = .*)$', lambda m, text=line: m[1] + "\n" + text, block)
        blocks[index] = block
        print(found[1], {k: round(v, 3) for k, v in bad.items()})
    print(f"{len(marked)} rows inconsistent", file=sys.stderr)
    if args.write:
        PATH.write_text("".join(blocks), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
