"""Browser benchmark of the calculators (not a test): prints the figures for the notes.

Over N cold browser contexts (default 5), in Debian Chromium via Playwright:
- bare loadPyodide() time (a tiny harness page: a module worker that only loads Pyodide) vs
  calculator-ready time (data-state="ready"), both from navigation start: the snapshot ratio,
  goal <= 0.70 (the calculator starts from the Pyodide memory snapshot, calc already imported)
- repeat visit: the same context after the service worker has cached the site (and the first
  visit has primed the runtime script's module code cache: sw-register.js), a new tab on the
  calculator page, navigation start -> ready; goal <= 1 s. Also reported, not instead: a later
  visit (one more new tab: the other scripts' code caches, made on the repeat visit, in use) and
  the same tab going to a content page and back (the tab keeps its renderer process: warm
  compiled code), and a repeat visit in a new browser window (every tab of the context closed
  first: Chromium then builds the window's own UI beside the page). Each context first opens a
  window (a blank tab, kept open) so that every page is a new tab of it, as a reader opens a
  page: see _browser_window
- bytes per calculator page until ready (gzip as served), per file, and the service worker's
  offline cache (every file of the build, raw and as a gzip-serving host would send it)
- first result (prerendered, in the HTML) vs DOMContentLoaded
- recompute latency p50 / p95 over >= 50 input changes (goal <= 16 ms / <= 50 ms): from the input
  event to the new result in the DOM (worker round trip, Python, rendering, chart update)
- bytes transferred by a content page and by a calculator page (until ready)
- Lighthouse (npm `lighthouse`, CHROME_PATH=/usr/bin/chromium): a content page and a calculator
  page in each language (goal >= 0.95 in every category)

The server gzips text files (html/css/js/json) like GitHub Pages; --no-gzip serves them raw.

Run: .venv/bin/python bench/bench_browser.py [--runs 5] [--changes 60] [--no-lighthouse] [--no-gzip]
     [--config mkdocs.yml] [--site-dir DIR (already built for --port)]
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import io
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
PREFIX = "/nfg/"
LANGS = ("en", "ja", "es")
CONTENT_PAGE = "reference/instances/"
CALCULATOR_PAGE = "calculators/memory/"
WINDOW_SETTLE_S = 2.0  # a new window's own UI loads in 1.1-1.5 s here (traced): see _browser_window

# Written into the served site: a module worker that does nothing but loadPyodide().
BARE_HTML = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bare</title></head>
<body><script type="module">
const dir = new URL("{pyodide_dir}", location.href).href;
const src = `import {{ loadPyodide }} from "${{dir}}pyodide.mjs";
self.onmessage = async () => {{
  await loadPyodide({{ indexURL: "${{dir}}" }});
  postMessage("ok");
}};`;
const worker = new Worker(URL.createObjectURL(new Blob([src], {{type: "text/javascript"}})),
                          {{type: "module"}});
worker.onmessage = () => {{ window.bareReadyMs = performance.now(); }};
worker.postMessage("go");
</script></body></html>
"""

# Injected before any page script: timestamps for DOMContentLoaded, first result and ready.
PROBE_JS = """
window.__nfg = {};
document.addEventListener("DOMContentLoaded", () => { window.__nfg.dcl = performance.now(); });
new MutationObserver(() => {
  const root = document.querySelector(".nfg-calc");
  if (!root) return;
  if (window.__nfg.first === undefined && root.querySelector("dd[data-value]")) {
    window.__nfg.first = performance.now();
  }
  if (window.__nfg.loading === undefined && root.dataset.state === "loading") {
    window.__nfg.loading = performance.now();
  }
  if (window.__nfg.ready === undefined && root.dataset.state === "ready") {
    window.__nfg.ready = performance.now();
  }
}).observe(document, { subtree: true, childList: true, attributes: true,
                       attributeFilter: ["data-state"] });
"""

# calc.api round trips through the worker only (no DOM): the floor under the recompute latency.
ROUND_TRIP_JS = """
async (n) => {
  const client = document.querySelector(".nfg-calc").nfgWidget.client;
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await client.calculate("memory", { model: "llama-3.1-8b", instance: "inf2.xlarge",
                                       batch: 1 + (i % 16), seq_len: 4096 });
    times.push(performance.now() - t0);
  }
  return times;
}
"""

# Where the time to ready goes: the client's worker start and the worker's own marks (epoch ms,
# converted to this page's clock), then the widget's data-state="ready".
STAGES_JS = """
() => {
  const client = document.querySelector(".nfg-calc").nfgWidget.client;
  const stages = { "worker-created": client.startedAt };
  for (const [name, epoch] of Object.entries(client.readyMarks || {})) {
    stages[name] = epoch - performance.timeOrigin;
  }
  stages["widget-ready"] = window.__nfg.ready;
  return stages;
}
"""

RECOMPUTE_JS = """
async (n) => {
  const root = document.querySelector(".nfg-calc");
  const input = root.querySelector('[name="batch"]');
  const times = [];
  for (let i = 0; i < n; i++) {
    const before = root.dataset.computed;
    const done = new Promise((resolve) => {
      const mo = new MutationObserver(() => {
        if (root.dataset.computed !== before) { mo.disconnect(); resolve(); }
      });
      mo.observe(root, { attributes: true, attributeFilter: ["data-computed"] });
    });
    const t0 = performance.now();
    input.value = String(1 + (i % 16));
    input.dispatchEvent(new Event("input", { bubbles: true }));
    await done;
    times.push(performance.now() - t0);
  }
  return times;
}
"""


GZIP_SUFFIXES = {".html", ".css", ".js", ".mjs", ".json", ".xml", ".svg"}
GZIP_TEXT = True  # --no-gzip turns it off


@functools.lru_cache(maxsize=512)
def _gzipped(path: Path, mtime_ns: int) -> bytes:
    return gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)


@dataclass(frozen=True, slots=True)
class Site:
    base_url: str
    site_dir: Path


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".mjs": "text/javascript",
                      ".js": "text/javascript"}

    def translate_path(self, path: str) -> str:
        if path.startswith(PREFIX):
            path = "/" + path[len(PREFIX):]
        return super().translate_path(path)

    def send_head(self) -> Any:
        """Text files gzip-compressed when the client accepts it, as GitHub Pages serves them
        (Lighthouse's throttled network sees production-like sizes). Same for every page,
        including the bare loadPyodide() harness."""
        url_path = self.path.split("?", 1)[0].split("#", 1)[0]
        path = Path(self.translate_path(url_path))
        if url_path.endswith("/") and path.is_dir():
            path = path / "index.html"
        if (not GZIP_TEXT or path.suffix not in GZIP_SUFFIXES or not path.is_file()
                or "gzip" not in self.headers.get("Accept-Encoding", "")):
            return super().send_head()
        body = _gzipped(path, path.stat().st_mtime_ns)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Last-Modified", self.date_time_string(int(path.stat().st_mtime)))
        self.end_headers()
        return io.BytesIO(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # the wasm pre-flight is cancelled on purpose


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def build_and_serve(config: str, site_dir: Path | None, port: int | None) -> tuple[Site, Any]:
    port = port or _free_port()
    base_url = f"http://127.0.0.1:{port}{PREFIX}"
    if site_dir is None:
        site_dir = Path(tempfile.mkdtemp(prefix="nfg-bench-site-"))
        env = {**os.environ, "SITE_URL": base_url, "NO_MKDOCS_2_WARNING": "1"}
        started = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-f", config,
                               "--site-dir", str(site_dir)], cwd=ROOT, env=env,
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise SystemExit(f"mkdocs build failed:\n{proc.stderr[-3000:]}")
        print(f"site built in {time.perf_counter() - started:.1f} s -> {site_dir}")
    pyodide_dirs = sorted((site_dir / "assets" / "runtime").glob("pyodide-*"))
    if not pyodide_dirs:
        raise SystemExit("no assets/runtime/pyodide-* in the site: is hooks/runtime_assets.py on?")
    pyodide_dir = f"assets/runtime/{pyodide_dirs[-1].name}/"
    (site_dir / "bench-bare-pyodide.html").write_text(
        BARE_HTML.format(pyodide_dir="./" + pyodide_dir), encoding="utf-8")
    server = _Server(("127.0.0.1", port),
                     functools.partial(_Handler, directory=str(site_dir)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return Site(base_url=base_url, site_dir=site_dir), server


def _append(items: list[Any], item: Any) -> None:
    items.append(item)


def _page_requests(requests: list[Any]) -> list[Any]:
    """Requests of the page and its workers, not of the service worker (its precache)."""
    return [r for r in requests if getattr(r, "service_worker", None) is None]


def _bytes(requests: list[Any]) -> int:
    total = 0
    for request in _page_requests(requests):
        try:
            sizes = request.sizes()
        except Exception:  # noqa: BLE001 - a request without a response (aborted) has no size
            continue
        total += int(sizes.get("responseBodySize", 0)) + int(sizes.get("responseHeadersSize", 0))
    return total


def _by_file(requests: list[Any]) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for request in _page_requests(requests):
        try:
            body = int(request.sizes().get("responseBodySize", 0))
        except Exception:  # noqa: BLE001 - aborted request
            continue
        name = request.url.split("?", 1)[0].rsplit("/", 1)[-1] or "(page)"
        sizes[name] = sizes.get(name, 0) + body
    return dict(sorted(sizes.items(), key=lambda item: -item[1]))


SW_CONTROLLED_JS = ("() => navigator.serviceWorker.controller !== null"
                    " && navigator.serviceWorker.controller.state === 'activated'")
# the first visit's last step: the runtime script's module code cache primed (sw-register.js)
PRIMED_JS = "() => window.__nfgCalcBoot.codeCache !== undefined"


def offline_cache_bytes(site_dir: Path) -> dict[str, int]:
    """The service worker's precache: raw bytes and bytes as a gzip-serving host sends them."""
    text = (site_dir / "sw.js").read_text(encoding="utf-8")
    files = json.loads(text.split("const FILES = ", 1)[1].split(";\n", 1)[0])
    raw = wire = 0
    for url in files:
        path = site_dir / (url if not url.endswith("/") else url + "index.html")
        if url == "./":
            path = site_dir / "index.html"
        data = path.read_bytes()
        raw += len(data)
        wire += len(gzip.compress(data, 6)) if path.suffix in GZIP_SUFFIXES else len(data)
    return {"files": len(files), "raw_bytes": raw, "gzip_bytes": wire}


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, int(round(q * len(ordered))) - 1)]


def _browser_window(browser: Any) -> Any:
    """A new context with a browser window open in it: a blank tab, left open, then a pause while
    Chromium builds the window's own UI. Every page the bench opens after it is a new tab of that
    window, as a reader opens a page in the browser they have open. Without it Playwright's
    first page of a context opens a new window, and with every new window Chromium loads its
    omnibox popup (chrome://omnibox-popup.top-chrome, a WebUI renderer): in a trace of a repeat
    visit it took 0.3-0.5 s of CPU in the first 1.1-1.5 s, beside the page, on this two-core
    machine. measure_browser still measures one repeat visit in a new window, separately."""
    context = browser.new_context()
    context.new_page()
    time.sleep(WINDOW_SETTLE_S)
    return context


def _open_calculator(page: Any, site: Site) -> float:
    """The calculator page in this tab, until its widget is ready: the ready time (navigation
    start -> ready, ms)."""
    page.goto(site.base_url + CALCULATOR_PAGE, wait_until="domcontentloaded")
    page.wait_for_function("() => window.__nfg.ready !== undefined", timeout=120_000)
    return float(page.evaluate("window.__nfg.ready"))


def _new_tab_visit(context: Any, site: Site, label: str, ready_ms: list[float]) -> Any:
    """A new tab on the calculator page in this context: its ready time (navigation start ->
    ready) appended to ready_ms, its stages printed; the tab is returned, open. With no tab open
    in the context, the new tab comes in a new window."""
    page = context.new_page()
    ready_ms.append(_open_calculator(page, site))
    print(f"  {label} stages (ms): " + ", ".join(
        f"{k} {v:.0f}" for k, v in page.evaluate(STAGES_JS).items() if v is not None))
    return page


def measure_browser(site: Site, runs: int, changes: int, content_page: str) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    repeat_ms: list[float] = []
    later_ms: list[float] = []
    new_window_ms: list[float] = []
    code_cache: list[str] = []
    same_tab_ms: list[float] = []
    recompute_installing: list[float] = []
    snapshot_starts: list[bool] = []
    calc_files: dict[str, int] = {}
    bare_ms: list[float] = []
    ready_ms: list[float] = []
    first_minus_dcl_ms: list[float] = []
    first_ms: list[float] = []
    dcl_ms: list[float] = []
    content_bytes: list[int] = []
    calc_bytes: list[int] = []
    recompute: list[float] = []
    round_trip: list[float] = []
    stage_rows: list[dict[str, float]] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for run in range(runs):
            # bare loadPyodide()
            context = _browser_window(browser)
            page = context.new_page()
            page.goto(site.base_url + "bench-bare-pyodide.html")
            page.wait_for_function("() => window.bareReadyMs !== undefined", timeout=120_000)
            bare_ms.append(float(page.evaluate("window.bareReadyMs")))
            context.close()

            # calculator page: first result, DOMContentLoaded, ready, bytes
            context = _browser_window(browser)
            finished: list[Any] = []
            context.on("requestfinished", functools.partial(_append, finished))
            context.add_init_script(PROBE_JS)
            page = context.new_page()
            _open_calculator(page, site)
            marks = page.evaluate("window.__nfg")
            worker_ms = page.evaluate(
                "document.querySelector('.nfg-calc').nfgWidget.client.readyMs")
            stages = page.evaluate(STAGES_JS)
            stage_rows.append(stages)
            ready_ms.append(float(marks["ready"]))
            first_ms.append(float(marks["first"]))
            dcl_ms.append(float(marks["dcl"]))
            first_minus_dcl_ms.append(float(marks["first"]) - float(marks["dcl"]))
            snapshot_starts.append(bool(page.evaluate(
                "document.querySelector('.nfg-calc').nfgWidget.client.startedFromSnapshot")))
            # bytes until ready (after it, the service worker caches the whole site)
            calc_bytes.append(_bytes(list(finished)))
            if run == 0:
                calc_files = _by_file(list(finished))
                # right after ready, while the service worker caches the site (first visit)
                recompute_installing = [float(t) for t in page.evaluate(RECOMPUTE_JS, changes)]
            # repeat visit: the service worker has cached the site; a new tab, same context
            page.wait_for_function(SW_CONTROLLED_JS, timeout=300_000, polling=250)
            page.wait_for_function(PRIMED_JS, timeout=60_000, polling=50)
            code_cache.append(str(page.evaluate("window.__nfgCalcBoot.codeCache")))
            if run == 0:  # steady state: the first visit's work (caching the site) is done
                recompute = [float(t) for t in page.evaluate(RECOMPUTE_JS, changes)]
                round_trip = [float(t) for t in page.evaluate(ROUND_TRIP_JS, changes)]
            page.close()
            page = _new_tab_visit(context, site, "repeat visit", repeat_ms)
            # the same tab: to a content page and back (a reader moving around the guide; the
            # browser keeps the tab's renderer process, so its compiled code is warm)
            page.goto(site.base_url + content_page, wait_until="domcontentloaded")
            same_tab_ms.append(_open_calculator(page, site))
            # a later visit: one more new tab (the code caches the repeat visit made, in use)
            page.close()
            _new_tab_visit(context, site, "later visit", later_ms)
            # a repeat visit in a new window: every tab of the context closed first (the
            # browser then loads the new window's own UI beside the page: see _browser_window)
            for tab in context.pages:
                tab.close()
            _new_tab_visit(context, site, "new-window visit", new_window_ms)
            context.close()

            # content page bytes
            context = browser.new_context()
            finished = []
            context.on("requestfinished", functools.partial(_append, finished))
            page = context.new_page()
            page.goto(site.base_url + content_page, wait_until="networkidle")
            content_bytes.append(_bytes(finished))
            context.close()
            print("  stages (ms from navigation start): "
                  + ", ".join(f"{k} {v:.0f}" for k, v in stages.items()))
            print(f"run {run + 1}/{runs}: bare {bare_ms[-1]:.0f} ms, ready {ready_ms[-1]:.0f} ms "
                  f"(snapshot {snapshot_starts[-1]}), repeat visit {repeat_ms[-1]:.0f} ms "
                  f"(later visit {later_ms[-1]:.0f} ms, same tab {same_tab_ms[-1]:.0f} ms, "
                  f"new window {new_window_ms[-1]:.0f} ms), "
                  f"(worker started at {marks.get('loading', 0):.0f} ms, its init took "
                  f"{worker_ms:.0f} ms), "
                  f"first result {first_ms[-1]:.0f} ms, DCL {dcl_ms[-1]:.0f} ms")
        browser.close()
    recompute_sorted = sorted(recompute)
    p95_index = max(0, int(round(0.95 * len(recompute_sorted))) - 1)
    return {
        "runs": runs,
        "bare_load_pyodide_ms_median": statistics.median(bare_ms),
        "calculator_ready_ms_median": statistics.median(ready_ms),
        "ready_over_bare_ratio": statistics.median(ready_ms) / statistics.median(bare_ms),
        "ready_over_bare_ratio_per_run": [r / b for r, b in zip(ready_ms, bare_ms, strict=True)],
        "started_from_snapshot": snapshot_starts,
        "repeat_visit_ready_ms_median": statistics.median(repeat_ms),
        "repeat_visit_ready_ms_max": max(repeat_ms),
        "first_visit_code_cache": code_cache,
        "later_visit_ready_ms_median": statistics.median(later_ms),
        "later_visit_ready_ms_max": max(later_ms),
        "new_window_visit_ready_ms_median": statistics.median(new_window_ms),
        "new_window_visit_ready_ms_max": max(new_window_ms),
        "repeat_visit_same_tab_ready_ms_median": statistics.median(same_tab_ms),
        "repeat_visit_same_tab_ready_ms_max": max(same_tab_ms),
        "first_result_ms_median": statistics.median(first_ms),
        "dom_content_loaded_ms_median": statistics.median(dcl_ms),
        "first_result_minus_dcl_ms_median": statistics.median(first_minus_dcl_ms),
        "recompute_changes": len(recompute),
        "recompute_p50_ms": statistics.median(recompute) if recompute else None,
        "recompute_p95_ms": recompute_sorted[p95_index] if recompute else None,
        "recompute_while_sw_installs_p50_ms": _pct(recompute_installing, 0.50),
        "recompute_while_sw_installs_p95_ms": _pct(recompute_installing, 0.95),
        "worker_round_trip_p50_ms": statistics.median(round_trip) if round_trip else None,
        "stages_ms_median": {k: statistics.median(r[k] for r in stage_rows if k in r)
                             for k in stage_rows[0]} if stage_rows else {},
        "content_page_bytes_median": statistics.median(content_bytes),
        "calculator_page_bytes_median": statistics.median(calc_bytes),
        "calculator_page_bytes_by_file_run1": calc_files,
        "offline_cache": offline_cache_bytes(site.site_dir),
    }


def lighthouse(site: Site, content_page: str) -> dict[str, dict[str, float]]:
    binary = ROOT / "node_modules" / ".bin" / "lighthouse"
    if not binary.exists():
        raise SystemExit("node_modules/.bin/lighthouse missing: run `npm ci`")
    scores: dict[str, dict[str, float]] = {}
    env = {**os.environ, "CHROME_PATH": CHROMIUM}
    with tempfile.TemporaryDirectory(prefix="nfg-lh-") as tmp:
        for lang in LANGS:
            prefix = "" if lang == "en" else f"{lang}/"
            for label, path in (("content", content_page), ("calculator", CALCULATOR_PAGE)):
                url = f"{site.base_url}{prefix}{path}"
                out = Path(tmp) / f"{lang}-{label}.json"
                proc = subprocess.run(
                    [str(binary), url, "--quiet", "--output=json", f"--output-path={out}",
                     "--chrome-flags=--headless=new --no-sandbox --disable-gpu"],
                    env=env, capture_output=True, text=True, check=False, timeout=300)
                if proc.returncode != 0 or not out.exists():
                    print(f"lighthouse failed for {url}: {proc.stderr[-500:]}")
                    continue
                report = json.loads(out.read_text(encoding="utf-8"))
                key = f"{lang} {label} ({prefix}{path})"
                scores[key] = {cid: cat["score"] for cid, cat in report["categories"].items()}
                low = [f"{a['id']}={a['score']}" for a in report["audits"].values()
                       if a.get("score") is not None and a["score"] < 0.9
                       and a.get("scoreDisplayMode") in ("binary", "numeric")]
                print(f"lighthouse {key}: {scores[key]}  low audits: {', '.join(low[:8])}")
    return scores


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--changes", type=int, default=60)
    parser.add_argument("--config", default="mkdocs.yml")
    parser.add_argument("--site-dir", type=Path, default=None)
    parser.add_argument("--port", type=int, default=None)
    parser.add_argument("--content-page", default=CONTENT_PAGE)
    parser.add_argument("--no-lighthouse", action="store_true")
    parser.add_argument("--lighthouse-only", action="store_true")
    parser.add_argument("--no-gzip", action="store_true",
                        help="serve text files uncompressed (default: gzip, like GitHub Pages)")
    args = parser.parse_args()
    global GZIP_TEXT
    GZIP_TEXT = not args.no_gzip
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    if args.runs < 5 or args.changes < 50:
        print("note: the goals are defined over >= 5 runs and >= 50 input changes")
    site, server = build_and_serve(args.config, args.site_dir, args.port)
    try:
        if not args.lighthouse_only:
            report_browser(measure_browser(site, args.runs, args.changes, args.content_page))
        if not args.no_lighthouse:
            scores = lighthouse(site, args.content_page)
            print(json.dumps(scores, indent=2))
    finally:
        server.shutdown()
    return 0


def report_browser(figures: dict[str, Any]) -> None:
    print(json.dumps(figures, indent=2))
    print(f"snapshot ratio (calculator ready / bare loadPyodide) "
          f"{figures['ready_over_bare_ratio']:.3f} (goal <= 0.70); "
          f"repeat visit ready {figures['repeat_visit_ready_ms_median']:.0f} ms median, "
          f"{figures['repeat_visit_ready_ms_max']:.0f} ms max (goal <= 1000; later visit "
          f"{figures['later_visit_ready_ms_median']:.0f} ms median, "
          f"{figures['later_visit_ready_ms_max']:.0f} ms max; same tab "
          f"{figures['repeat_visit_same_tab_ready_ms_median']:.0f} ms median, "
          f"{figures['repeat_visit_same_tab_ready_ms_max']:.0f} ms max; in a new window "
          f"{figures['new_window_visit_ready_ms_median']:.0f} ms median, "
          f"{figures['new_window_visit_ready_ms_max']:.0f} ms max); "
          f"recompute p50 {figures['recompute_p50_ms']:.1f} ms (goal <= 16), "
          f"p95 {figures['recompute_p95_ms']:.1f} ms (goal <= 50) once the site is cached "
          f"(while the service worker caches it: p50 "
          f"{figures['recompute_while_sw_installs_p50_ms']:.1f}, p95 "
          f"{figures['recompute_while_sw_installs_p95_ms']:.1f} ms); "
          f"calculator page {figures['calculator_page_bytes_median'] / 1e6:.2f} MB until ready "
          f"(gzip text), offline cache {figures['offline_cache']['gzip_bytes'] / 1e6:.2f} MB "
          f"({figures['offline_cache']['files']} files)")


if __name__ == "__main__":
    raise SystemExit(main())
