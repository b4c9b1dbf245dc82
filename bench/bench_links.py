"""Share-link sweep (issue 17; not a test): loads generated share links on every calculator page
in the three languages, in Debian Chromium, and counts what must stay zero:

- hangs: the page reached neither data-state "ready" nor "failed" within 90 s, or, ready, its
  results neither "live" nor "error" within 30 s
- silent fallbacks: a link value of a calculator field that the form does not hold, with no
  message next to that field (the reader would get numbers for another input without a sign)
- wrong numbers: live results that differ from what calc.display.present (CPython) gives for the
  inputs on screen
- script executions: link values carry script payloads that set window.__pwned or open a dialog
- CSP violations: securitypolicyviolation events and console "Refused to ..." messages

Run: .venv/bin/python bench/bench_links.py [--links 10] [--seed 17] [--site-dir DIR --port N]
(builds the site unless --site-dir names one built for --port).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_browser import CHROMIUM, CHROMIUM_ARGS, build_and_serve  # noqa: E402

from calc.display import LANGS, calculators, present  # noqa: E402

READY_MS = 90_000
RESULTS_MS = 30_000
PAYLOADS = (
    '<img src=x onerror="window.__pwned=1">',
    '"><script>window.__pwned=1</script>',
    "javascript:window.__pwned=1",
    "';window.__pwned=1;'",
    "<svg onload=alert(1)>",
    '=HYPERLINK("http://x","y")',
)
PLAIN = ("1", "0", "-3", "1e999", "10B", "1,5", "1.500", "10,000", "abc", "", "@SUM(A1)",
         "inf2.xlarge", "trn2.48xlarge", "nope", "training", "serving", "inference", "9" * 400,
         "１０", "100億", " 4 ", "0.5", "llama-3.1-70b", "mixtral-8x7b")
PROBE_JS = """
window.__nfgCsp = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__nfgCsp.push(e.violatedDirective + " " + e.blockedURI), true);
window.alert = window.confirm = window.prompt = () => { window.__pwned = 1; };
"""
CSP_TEXT = re.compile(r"Content Security Policy|Content-Security-Policy|Refused to", re.I)
SHOWN_JS = """els => els.map(e => [e.dataset.field,
  e.hasAttribute("data-value") ? e.dataset.value : null])"""


def generate(rng: random.Random, name: str) -> dict[str, str]:
    fields = [f.name for f in calculators.calculator(name).fields]
    keys = rng.sample(fields, k=min(len(fields), rng.randint(1, 4)))
    if rng.random() < 0.3:
        keys.append(rng.choice(["x", "utm_source", "lang"]))
    query = {}
    for key in keys:
        pool = PAYLOADS if rng.random() < 0.25 else PLAIN
        query[key] = rng.choice(pool)
    return query


def url_for(base_url: str, lang: str, name: str, query: dict[str, str]) -> str:
    prefix = "" if lang == "en" else f"{lang}/"
    text = "&".join(f"{quote(k)}={quote(v)}" for k, v in query.items())
    return f"{base_url}{prefix}calculators/{name}/?{text}"


def check_link(page: Any, lang: str, name: str, query: dict[str, str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {"hang": [], "fallback": [], "wrong": []}
    try:
        page.wait_for_selector('.nfg-calc[data-state="ready"], .nfg-calc[data-state="failed"]',
                               timeout=READY_MS, state="attached")
    except Exception:  # noqa: BLE001 - a timeout is what is counted
        found["hang"].append("no ready/failed")
        return found
    if page.get_attribute(".nfg-calc", "data-state") == "failed":
        return found
    try:
        page.wait_for_function(
            "() => ['live', 'error'].includes(document.querySelector('.nfg-calc')"
            ".dataset.results)", timeout=RESULTS_MS)
    except Exception:  # noqa: BLE001
        found["hang"].append("results neither live nor error")
        return found
    spec = calculators.calculator(name)
    names = {f.name for f in spec.fields}
    form = dict(page.eval_on_selector_all(".nfg-calc__form [name]",
                                          "els => els.map(e => [e.name, e.value.trim()])"))
    errors = dict(page.eval_on_selector_all(
        ".nfg-calc [data-input]",
        "els => els.map(e => [e.dataset.input,"
        " (e.querySelector('.nfg-calc__error') || {}).textContent || ''])"))
    form_error = page.eval_on_selector_all(".nfg-calc__form-error",
                                           "els => els.map(e => e.textContent.trim())")
    for key, value in query.items():
        if key not in names:
            continue
        wanted = value.replace("\n", "").strip()
        if form.get(key) != wanted and not errors.get(key, "").strip() and not any(form_error):
            found["fallback"].append(f"{key}={value[:30]!r} shown as {form.get(key, '')[:30]!r}")
    if name != "advisor" and page.get_attribute(".nfg-calc", "data-results") == "live":
        unknown = [k for k in dict.fromkeys(query) if k not in names]
        expected = present({"calculator": name, "values": form, "unknown": unknown}, lang)
        shown = dict(page.eval_on_selector_all(
            ".nfg-calc__outputs:not([hidden]) dd[data-field]", SHOWN_JS))
        wanted_values = {o["field"]: o["value"] for o in expected["outputs"]}
        if shown != wanted_values:
            found["wrong"].append("live numbers differ from CPython's")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--links", type=int, default=10, help="links per calculator and language")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--config", default="mkdocs.yml")
    parser.add_argument("--site-dir", type=Path, default=None)
    parser.add_argument("--port", type=int, default=None)
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    from playwright.sync_api import sync_playwright

    rng = random.Random(args.seed)
    site, server = build_and_serve(args.config, args.site_dir, args.port)
    counts = {"loads": 0, "hangs": 0, "silent_fallbacks": 0, "wrong_numbers": 0,
              "script_executions": 0, "csp_violations": 0}
    started = time.monotonic()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for lang in LANGS:
                context = browser.new_context()
                context.add_init_script(PROBE_JS)
                for name in calculators.CALCULATORS:
                    for _ in range(args.links):
                        query = generate(rng, name)
                        page = context.new_page()
                        console: list[str] = []
                        page.on("console", lambda m, sink=console: sink.append(m.text))
                        page.on("dialog", lambda d: d.dismiss())
                        page.goto(url_for(site.base_url, lang, name, query),
                                  wait_until="domcontentloaded", timeout=60_000)
                        counts["loads"] += 1
                        found = check_link(page, lang, name, query)
                        pwned = bool(page.evaluate("window.__pwned === 1"))
                        csp = list(page.evaluate("window.__nfgCsp || []"))
                        csp += [t for t in console if CSP_TEXT.search(t)]
                        counts["hangs"] += bool(found["hang"])
                        counts["silent_fallbacks"] += len(found["fallback"])
                        counts["wrong_numbers"] += bool(found["wrong"])
                        counts["script_executions"] += pwned
                        counts["csp_violations"] += len(csp)
                        problems = [*found["hang"], *found["fallback"], *found["wrong"],
                                    *(["script ran"] if pwned else []), *csp]
                        if problems:
                            print(f"{lang} {name} {query}: {problems}")
                        page.close()
                context.close()
                print(f"{lang}: {counts}")
            browser.close()
    finally:
        server.shutdown()
    print(f"share links: {counts} in {time.monotonic() - started:.0f} s")
    return 0 if all(v == 0 for k, v in counts.items() if k != "loads") else 1


if __name__ == "__main__":
    raise SystemExit(main())
