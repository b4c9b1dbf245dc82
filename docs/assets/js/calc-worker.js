// Module Web Worker: Pyodide + the calc wheel (installed with unpackArchive), behind a small typed
// protocol. No micropip, no CDN: every URL comes from the page's build-time config.
//
// main → worker
//   {type: "init", pyodideUrl, wheelUrl, snapshotUrl?, downloadBytes?, timeoutMs}
//        (snapshotUrl: the memory snapshot, optional; downloadBytes: the first visit's total)
//   {type: "request", id, kind, params}                  (calc.api.run: raw numbers)
//   {type: "present", id, request, lang}                 (calc.display.present: display text)
//   {type: "ping", id}                                   (liveness check of the page)
// worker → main
//   {type: "progress", stage: "runtime-download" | "runtime-start" | "calc-load", bytes}
//                                  (bytes: runtime bytes received so far, for a <progress> bar)
//   {type: "ready", ms, marks, snapshot, snapshotError, fromCache}
//        (marks: {step: epoch ms} for benchmarks; see bench_browser.py; snapshot: true when
//         Python started from the memory snapshot, else snapshotError says why not; fromCache:
//         the runtime's files were read from the service worker's cache, a repeat visit)
//   {type: "failed", stage, reason}                       (terminal)
//   {type: "result", id, response}                        (response = calc.api.run(...) as JSON)
//   {type: "display", id, display, pythonMs}              (display = calc.display.present(...);
//                                                         pythonMs: its time in Python)
//   {type: "error", id, reason}                           (the worker could not answer)
//   {type: "pong", id}                                    (answer to ping)

const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d]; // "\0asm"
const rawFetch = self.fetch.bind(self); // not counted (see countDownloads)

let runCalc = null; // PyProxy of a Python function str -> str, set once ready
let presentCalc = null; // PyProxy of calc.display.present_json(str, lang) -> str
let failed = false;

function post(message) {
  self.postMessage(message);
}

// A step of start-up fails after `ms` WITHOUT ACTIVITY (no byte received, no stage reached), not
// after `ms` in all: on a slow link the download takes as long as it takes while bytes arrive.
let lastActivity = performance.now();
function touch() {
  lastActivity = performance.now();
}

function withTimeout(promise, ms, stage) {
  let timer;
  const timeout = new Promise((_, reject) => {
    const check = () => {
      const idle = performance.now() - lastActivity;
      if (idle >= ms) reject(new Error(`timeout: no progress for ${ms} ms (${stage})`));
      else timer = setTimeout(check, Math.min(1000, ms - idle));
    };
    touch();
    timer = setTimeout(check, ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// loadPyodide() can hang instead of rejecting when the wasm is missing: check it first.
async function preflightWasm(pyodideUrl) {
  // uncounted fetch: a counted clone would keep downloading after the cancel below
  return checkWasmHead(await rawFetch(new URL("pyodide.asm.wasm", pyodideUrl)));
}

// A repeat visit: the wasm in the service worker's cache, checked while the snapshot is read
// (no round trip through the service worker on the way to Python); not cached: fetched.
async function preflightCachedWasm(pyodideUrl) {
  const cached = await cachedResponse(new URL("pyodide.asm.wasm", pyodideUrl));
  return cached ? checkWasmHead(cached) : preflightWasm(pyodideUrl);
}

async function checkWasmHead(response) {
  if (!response.ok || !response.body) {
    throw new Error(`pyodide.asm.wasm: HTTP ${response.status}`);
  }
  const reader = response.body.getReader();
  const head = new Uint8Array(4);
  let filled = 0;
  while (filled < 4) {
    const { done, value } = await reader.read();
    if (done) break;
    const take = Math.min(4 - filled, value.length);
    head.set(value.subarray(0, take), filled);
    filled += take;
  }
  await reader.cancel();
  if (filled < 4 || WASM_MAGIC.some((byte, i) => head[i] !== byte)) {
    throw new Error("pyodide.asm.wasm is not WebAssembly");
  }
}

const PY_BRIDGE = `
import json
import calc.api
import calc.display

def _nfg_run(request_json):
    return json.dumps(calc.api.run(json.loads(request_json)), allow_nan=False, default=str)

_nfg_present = calc.display.present_json
`;

async function fetchWheel(wheelUrl) {
  const response = await fetch(wheelUrl);
  if (!response.ok) throw new Error(`${wheelUrl}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

// The memory snapshot (scripts/build_snapshot.py): gzip, decompressed here. After a first visit
// the service worker's cache holds it inflated (scripts/sw_template.js marks it with
// INFLATED_HEADER), read straight from the cache: no inflating again on every start. Any
// failure (missing, corrupted, another Pyodide build) only means a normal start.
const INFLATED_HEADER = "X-Nfg-Inflated";

async function readSnapshot(response) {
  if (!response.ok || !response.body) throw new Error(`snapshot: HTTP ${response.status}`);
  if (response.headers.get(INFLATED_HEADER) === "1") {
    return new Uint8Array(await response.arrayBuffer());
  }
  const raw = response.body.pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(raw).arrayBuffer());
}

// A file from the service worker's cache (a repeat visit), else null: then it is fetched.
async function cachedResponse(url) {
  if (!self.caches) return null;
  try {
    return (await caches.match(String(url))) || null;
  } catch (err) {
    return null; // storage not available here (e.g. a private mode): fetch it
  }
}

// Download progress: bytes of every runtime file the worker receives (fetches, counted on a
// clone of each response as it streams; the two scripts, from resource timing once loaded),
// posted at most every PROGRESS_MS. The page shows them in a <progress> element.
const PROGRESS_MS = 100;
// `prefetched` (url -> Promise<Response>): a download started early, handed to the first fetch
// of that URL (Pyodide asks for the stdlib only after the wasm has started). With
// `fromCache.on` (a repeat visit: the snapshot was in the cache) a file the service worker's
// cache holds is read from it directly: no round trip through the service worker.
function countDownloads(onBytes, prefetched, fromCache) {
  const original = self.fetch.bind(self);
  self.fetch = async (input, options) => {
    const key = typeof input === "string" ? input : String(input.url || input);
    if (prefetched.has(key)) {
      const early = prefetched.get(key);
      prefetched.delete(key);
      return early;
    }
    if (fromCache.on) {
      const hit = await cachedResponse(key);
      if (hit) return hit;
    }
    const response = await original(input, options);
    if (response.ok && response.body) {
      const reader = response.clone().body.getReader();
      (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          onBytes(value.byteLength);
        }
      })().catch(() => {});
    }
    return response;
  };
  if ("PerformanceObserver" in self) {
    try {
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          if (entry.initiatorType !== "fetch" && /\.m?js$/.test(new URL(entry.name).pathname)) {
            onBytes(entry.decodedBodySize || 0);
          }
        }
      }).observe({ type: "resource", buffered: true });
    } catch (err) {
      // no resource timing in this worker: the scripts are not counted
    }
  }
  return () => { self.fetch = original; };
}

// Stage runtime-download until every byte of the first visit's download (downloadBytes, known at
// build time) has arrived, then runtime-start; calc-load is set by init().
function progressPoster(downloadBytes) {
  let bytes = 0;
  let stage = "runtime-download";
  let timer = null;
  const send = () => {
    timer = null;
    post({ type: "progress", stage, bytes });
  };
  return {
    add(n) {
      touch();
      bytes += n;
      if (stage === "runtime-download" && downloadBytes && bytes >= downloadBytes) {
        this.stage("runtime-start");
      } else if (timer === null) {
        timer = setTimeout(send, PROGRESS_MS);
      }
    },
    stage(next) {
      touch();
      if (next === stage && timer === null && bytes > 0) return;
      stage = next;
      if (timer !== null) clearTimeout(timer);
      send();
    },
    get current() { return stage; },
    stop() { // before ready/failed: no progress message may follow a terminal one
      if (timer !== null) clearTimeout(timer);
      timer = null;
      this.add = () => {};
    },
  };
}

// The wheel's files (calc's modules and data) on Pyodide's file system. After a snapshot start
// every module is imported and every data file parsed already (scripts/snapshot_warmup.py), so
// the unpacking (~0.2 s) waits until just after ready; it always runs before the first answer.
let pendingWheel = null; // { pyodide, bytes, name } still to unpack
function unpackWheel() {
  if (!pendingWheel) return;
  const { pyodide, bytes, name } = pendingWheel;
  pendingWheel = null;
  pyodide.unpackArchive(bytes, "wheel", { filename: name });
}

function installCalc(pyodide, wheelBytes, wheelName, { deferUnpack = false } = {}) {
  pendingWheel = { pyodide, bytes: wheelBytes, name: wheelName };
  if (!deferUnpack) unpackWheel();
  pyodide.runPython(PY_BRIDGE);
  const run = pyodide.globals.get("_nfg_run");
  const present = pyodide.globals.get("_nfg_present");
  return { run, present };
}

// A restored snapshot must answer like a fresh start: one presentation, checked for ok.
function checkCalc(present) {
  const display = JSON.parse(present(JSON.stringify({ calculator: "memory" }), "en"));
  if (!display || display.ok !== true) throw new Error("snapshot: calc does not answer");
}

// The downloads (runtime, wheel, snapshot) and the wasm pre-flight run in parallel; Python only
// starts once the wasm is known to be there, because loadPyodide() can hang on a missing wasm.
// Start from the memory snapshot when there is one (calc already imported); on any snapshot
// failure start normally (the reason goes out in ready.snapshotError).
async function init({ pyodideUrl, wheelUrl, snapshotUrl, downloadBytes, timeoutMs }) {
  const started = performance.now();
  const marks = {};
  const mark = (name) => { marks[name] = performance.timeOrigin + performance.now(); };
  mark("worker-start");
  const progress = progressPoster(downloadBytes);
  const prefetched = new Map();
  const fromCache = { on: false };
  const stopCounting = countDownloads((n) => progress.add(n), prefetched, fromCache);
  let stage = "runtime-download";
  try {
    progress.stage(stage);
    // Pyodide's scripts: the loader, and the runtime script loadPyodide() would import itself
    // (it defines globalThis._createPyodideModule; an error here is loadPyodide's to report)
    const loader = import(new URL("pyodide.mjs", pyodideUrl).href);
    const runtimeScript = import(new URL("pyodide.asm.js", pyodideUrl).href);
    for (const p of [loader, runtimeScript]) p.catch(() => {}); // awaited below / by Pyodide
    runtimeScript.then(() => mark("runtime-script"), () => {});
    // Pyodide waits for the snapshot before it starts the wasm. On a repeat visit it is read
    // from the cache first, beside the scripts only: read alone it takes about a quarter of
    // the time it takes among the other files.
    const cached = snapshotUrl
      ? await withTimeout(cachedResponse(snapshotUrl), timeoutMs, stage).catch(() => null) : null;
    let snapshot = null;
    let preflight = null;
    if (cached) {
      fromCache.on = true;
      preflight = preflightCachedWasm(pyodideUrl);
      preflight.catch(() => {}); // awaited below
      snapshot = readSnapshot(cached);
      await withTimeout(snapshot, timeoutMs, stage).catch(() => {}); // its error: see below
    } else if (snapshotUrl) {
      snapshot = fetch(snapshotUrl).then(readSnapshot);
    }
    const stdlibUrl = new URL("python_stdlib.zip", pyodideUrl).href;
    const stdlib = self.fetch(stdlibUrl);
    stdlib.catch(() => {});
    prefetched.set(stdlibUrl, stdlib);
    preflight = preflight || preflightWasm(pyodideUrl);
    const wheel = fetchWheel(wheelUrl);
    for (const p of [wheel, snapshot]) if (p) p.catch(() => {}); // awaited below
    for (const [name, p] of [["wasm-checked", preflight], ["loader-imported", loader],
                             ["wheel-fetched", wheel], ["snapshot-fetched", snapshot]]) {
      if (p) p.then(() => mark(name), () => {});
    }
    await withTimeout(preflight, timeoutMs, stage);
    const { loadPyodide } = await withTimeout(loader, timeoutMs, stage);
    mark("runtime-loader");
    const wheelName = new URL(wheelUrl).pathname.split("/").pop();
    let calc = null;
    let snapshotError = "no snapshot";
    if (snapshot) {
      // loadPyodide downloads the wasm and the stdlib while the snapshot still downloads
      try {
        const pyodide = await withTimeout(
          loadPyodide({ indexURL: pyodideUrl, _loadSnapshot: snapshot }), timeoutMs, "runtime-start");
        mark("runtime-started");
        stage = "calc-load";
        progress.stage(stage);
        calc = installCalc(pyodide, await withTimeout(wheel, timeoutMs, stage), wheelName,
                           { deferUnpack: true });
        mark("wheel-unpacked");
        try {
          checkCalc(calc.present);
        } catch (err) { // it needed a file after all: with the files, or a normal start
          unpackWheel();
          checkCalc(calc.present);
        }
        snapshotError = null;
      } catch (err) {
        snapshotError = String(err && err.message ? err.message : err);
        calc = null;
      }
    }
    if (!calc) {
      stage = progress.current === "runtime-download" ? "runtime-download" : "runtime-start";
      const pyodide = await withTimeout(loadPyodide({ indexURL: pyodideUrl }), timeoutMs, stage);
      mark("runtime-started");
      stage = "calc-load";
      progress.stage(stage);
      calc = installCalc(pyodide, await withTimeout(wheel, timeoutMs, stage), wheelName);
    }
    mark("calc-imported");
    runCalc = calc.run;
    presentCalc = calc.present;
    stopCounting();
    progress.stop();
    post({ type: "ready", ms: performance.now() - started, marks,
           snapshot: snapshotError === null, snapshotError, fromCache: fromCache.on });
    if (pendingWheel) setTimeout(unpackWheel, 0); // before the page's first request, if idle
  } catch (err) {
    failed = true;
    stopCounting();
    progress.stop();
    post({ type: "failed", stage, reason: String(err && err.message ? err.message : err) });
  }
}

function answer({ id, kind, params }) {
  unpackWheel();
  if (!runCalc) {
    post({ type: "error", id, reason: failed ? "failed" : "not-ready" });
    return;
  }
  try {
    const requestJson = JSON.stringify({ schema_version: 1, kind, params });
    const response = JSON.parse(runCalc(requestJson));
    post({ type: "result", id, response });
  } catch (err) {
    post({ type: "error", id, reason: String(err && err.message ? err.message : err) });
  }
}

// Display text for a calculator's form values, made by Python (the prerender's own function)
function answerPresent({ id, request, lang }) {
  unpackWheel();
  if (!presentCalc) {
    post({ type: "error", id, reason: failed ? "failed" : "not-ready" });
    return;
  }
  try {
    const started = performance.now();
    const text = presentCalc(JSON.stringify(request), lang);
    const pythonMs = performance.now() - started;
    const display = JSON.parse(text);
    post({ type: "display", id, display, pythonMs }); // pythonMs: for the benches
  } catch (err) {
    post({ type: "error", id, reason: String(err && err.message ? err.message : err) });
  }
}

self.onmessage = (event) => {
  const message = event.data || {};
  if (message.type === "init") {
    init(message);
  } else if (message.type === "request") {
    answer(message);
  } else if (message.type === "present") {
    answerPresent(message);
  } else if (message.type === "ping") {
    post({ type: "pong", id: message.id });
  }
};
