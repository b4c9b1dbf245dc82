"""Browser benchmark of the advisor page (issue 11 item 4; not a test): prints the figures.

In Debian Chromium via Playwright, on the built site: after the worker is ready, N input
changes on calculators/advisor/ (input length, rate, targets, family, model); for each, the time
from the input event to the new options table in the DOM (the worker's whole calc.display.present:
the search, the table, chart, links and snippets as text, the JSON round trip and the DOM update;
`data-advisor-computed` is bumped by calc-advisor.js after it moved the strings in). p50 / p95 /
max, per language; goal p95 <= 150 ms. Then the search alone: the API op advise posted to the
page's own worker for new workloads (post -> result), p50 / p95 / max.

Run: .venv/bin/python bench/bench_advise_browser.py [--changes 30] [--site-dir DIR] [--langs en,ja]
(without --site-dir it builds the site into a temporary directory first).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]

# one change per step, cycling (typed as in English; es gets its decimal comma below)
CHANGES: list[tuple[str, str]] = [
    ("input_len", "512"), ("input_len", "2048"), ("output_len", "128"), ("output_len", "512"),
    ("request_rate", "2"), ("tpot_max", "0.05"), ("ttft_max", "1"), ("request_rate", "5"),
    ("tpot_max", ""), ("ttft_max", ""), ("request_rate", ""), ("tokens_per_day", "1e9"),
    ("tokens_per_day", ""), ("family", "neuron"), ("family", "gpu"), ("family", "all"),
    ("model", "llama-3.1-70b"), ("input_len", "1024"), ("tpot_max", "0.05"),
    ("request_rate", "2"), ("model", "mixtral-8x7b"), ("model", "llama-3.1-8b"),
    ("tpot_max", ""), ("request_rate", ""), ("output_len", "256"),
]

PROBE_JS = """
window.__adv = { samples: [], worker: [], t0: null, tMessage: null };
// the worker's share: input event -> its answer arrives on the page's thread (this listener is
// added before the page's own, so it runs first)
const NativeWorker = window.Worker;
window.Worker = class extends NativeWorker {
  constructor(...args) {
    super(...args);
    if (!String(args[0]).includes("calc-worker")) return;  // Material's search worker
    window.__adv.workerRef = this;
    this.addEventListener("message", () => { window.__adv.tMessage = performance.now(); });
  }
};
document.addEventListener("input", () => { window.__adv.t0 = performance.now(); }, true);
document.addEventListener("change", () => {
  if (window.__adv.t0 === null) window.__adv.t0 = performance.now();
}, true);
new MutationObserver(() => {
  const root = document.querySelector(".nfg-calc");
  if (!root || !root.dataset.advisorComputed) return;
  if (root.dataset.advisorComputed !== window.__adv.last && window.__adv.t0 !== null) {
    window.__adv.samples.push(performance.now() - window.__adv.t0);
    window.__adv.worker.push((window.__adv.tMessage ?? performance.now()) - window.__adv.t0);
    window.__adv.t0 = null;
  }
  window.__adv.last = root.dataset.advisorComputed;
}).observe(document, { subtree: true, attributes: true,
                       attributeFilter: ["data-advisor-computed"] });
"""


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".mjs": "text/javascript",
                      ".js": "text/javascript", ".whl": "application/zip"}

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # the worker cancels the wasm pre-flight: a reset connection is expected


def _serve(site_dir: Path) -> tuple[http.server.ThreadingHTTPServer, int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    server = _QuietServer(("127.0.0.1", port),
                          functools.partial(_Handler, directory=str(site_dir)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, port


def _build(site_dir: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site_dir)],
                   cwd=ROOT, env=env, check=True, capture_output=True)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


# The search alone (the API op advise through the page's own worker, as calc-client sends it):
# post -> result on the page's thread, for workloads no earlier search answered (cold).
SEARCH_JS = """
async (requests) => {
  const worker = window.__adv.workerRef;
  const times = [];
  for (const [index, params] of requests.entries()) {
    const id = 900000 + index;
    const started = performance.now();
    await new Promise((resolve) => {
      const listen = (event) => {
        if (event.data && event.data.id === id) {
          worker.removeEventListener("message", listen);
          resolve();
        }
      };
      worker.addEventListener("message", listen);
      worker.postMessage({ type: "request", id, kind: "advise", params });
    });
    times.push(performance.now() - started);
  }
  return times;
}
"""


def search_requests(count: int, lang_index: int) -> list[dict[str, Any]]:
    """Advise requests with input lengths no change above used: every one a new search."""
    models = ("llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b")
    extras: tuple[dict[str, Any], ...] = (
        {}, {"tpot_max": 0.05}, {"request_rate": 2}, {"ttft_max": 1, "tpot_max": 0.05},
        {"tokens_per_day": 1e9}, {"family": "neuron"},
    )
    return [{"model": models[k % len(models)], "input_len": 700 + 37 * k + lang_index,
             "output_len": (128, 256, 512)[k % 3], **extras[k % len(extras)]}
            for k in range(count)]


SW_CONTROLLED_JS = ("() => navigator.serviceWorker.controller !== null"
                    " && navigator.serviceWorker.controller.state === 'activated'")


def _typed(value: str, lang: str) -> str:
    return value.replace(".", ",") if lang == "es" else value


def run_lang(browser: Any, base: str, lang: str, changes: int, steady: bool, lang_index: int
             ) -> tuple[list[float], list[float], list[float]]:
    context = browser.new_context()
    context.add_init_script(PROBE_JS)
    page = context.new_page()
    prefix = "" if lang == "en" else f"{lang}/"
    page.goto(f"{base}{prefix}calculators/advisor/", wait_until="domcontentloaded")
    page.wait_for_selector('.nfg-calc[data-state="ready"]', state="attached", timeout=120_000)
    if steady:  # after the first visit's service worker has cached the site (20 MB of downloads)
        page.wait_for_function(SW_CONTROLLED_JS, timeout=300_000, polling=250)
    for step in range(changes):
        field, value = CHANGES[step % len(CHANGES)]
        before = page.evaluate("window.__adv.samples.length")
        selector = f'.nfg-calc [name="{field}"]'
        if page.eval_on_selector(selector, "e => e.tagName") == "SELECT":
            page.select_option(selector, value)
        else:
            page.fill(selector, _typed(value, lang))
        page.wait_for_function("n => window.__adv.samples.length > n", arg=before,
                               timeout=60_000)
        time.sleep(float(os.environ.get("BENCH_PAUSE_S", "0.05")))
    samples: list[float] = page.evaluate("window.__adv.samples")
    worker: list[float] = page.evaluate("window.__adv.worker")
    context.close()
    # the search alone, on a fresh page (a new worker: nothing kept, nothing warmed by the
    # changes above) once it is ready
    context = browser.new_context()
    context.add_init_script(PROBE_JS)
    page = context.new_page()
    page.goto(f"{base}{prefix}calculators/advisor/", wait_until="domcontentloaded")
    page.wait_for_selector('.nfg-calc[data-state="ready"]', state="attached", timeout=120_000)
    if steady:
        page.wait_for_function(SW_CONTROLLED_JS, timeout=300_000, polling=250)
    searches: list[float] = page.evaluate(SEARCH_JS, search_requests(changes, lang_index))
    context.close()
    return samples, worker, searches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--changes", type=int, default=30)
    parser.add_argument("--site-dir", type=Path)
    parser.add_argument("--langs", default="en,ja,es")
    parser.add_argument("--each", action="store_true",
                        help="also print every change's total / worker time")
    parser.add_argument("--while-installing", action="store_true",
                        help="measure right after ready, while the service worker caches the site")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        site_dir = args.site_dir or Path(tmp) / "site"
        if args.site_dir is None:
            _build(site_dir)
        server, port = _serve(site_dir)
        base = f"http://127.0.0.1:{port}/"
        everything: list[float] = []
        worker_all: list[float] = []
        search_all: list[float] = []
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            print(f"{'lang':<5} {'n':>3} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
            for lang_index, lang in enumerate(args.langs.split(",")):
                samples, worker, searches = run_lang(browser, base, lang, args.changes,
                                                     not args.while_installing, lang_index)
                everything += samples
                worker_all += worker
                search_all += searches
                print(f"{lang:<5} {len(samples):>3} {statistics.median(samples):>8.1f} "
                      f"{_percentile(samples, 0.95):>8.1f} {max(samples):>8.1f}")
                if args.each:  # every change: where the tail comes from
                    print("      " + " ".join(
                        f"{CHANGES[i % len(CHANGES)][0]}={CHANGES[i % len(CHANGES)][1]!r}:"
                        f"{t:.0f}/{w:.0f}" for i, (t, w) in enumerate(zip(samples, worker,
                                                                          strict=True))))
            browser.close()
        server.shutdown()
        page_part = [t - w for t, w in zip(everything, worker_all, strict=True)]
        print(f"of which: worker (input -> answer on the page's thread) p50 "
              f"{statistics.median(worker_all):.1f} / p95 {_percentile(worker_all, 0.95):.1f} ms;"
              f" page (answer -> DOM) p50 {statistics.median(page_part):.1f} / p95 "
              f"{_percentile(page_part, 0.95):.1f} ms")
        print(f"the search alone (api advise in a fresh page's worker once ready, "
              f"{len(search_all)} new workloads): p50 {statistics.median(search_all):.1f} / p95 "
              f"{_percentile(search_all, 0.95):.1f} / max {max(search_all):.1f} ms")
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        print(f"all   {len(everything):>3} {statistics.median(everything):>8.1f} "
              f"{_percentile(everything, 0.95):>8.1f} {max(everything):>8.1f}"
              "   (input event -> new options table in the DOM; goal p95 <= 150 ms; "
              + ("while the service worker caches the site)" if args.while_installing
                 else "once the service worker has cached the site)"))


if __name__ == "__main__":
    main()
