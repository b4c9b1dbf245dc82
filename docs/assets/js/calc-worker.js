// Module Web Worker: Pyodide + the calc wheel (installed with unpackArchive), behind a small typed
// protocol. No micropip, no CDN: every URL comes from the page's build-time config.
//
// main → worker
//   {type: "init", pyodideUrl, wheelUrl, timeoutMs}
//   {type: "request", id, kind, params}                  (calc.api.run: raw numbers)
//   {type: "present", id, request, lang}                 (calc.display.present: display text)
//   {type: "ping", id}                                   (liveness check of the page)
// worker → main
//   {type: "progress", stage: "runtime-download" | "runtime-start" | "calc-load"}
//   {type: "ready", ms, marks}     (marks: {step: epoch ms} for benchmarks; see bench_browser.py)
//   {type: "failed", stage, reason}                       (terminal)
//   {type: "result", id, response}                        (response = calc.api.run(...) as JSON)
//   {type: "display", id, display}                        (display = calc.display.present(...))
//   {type: "error", id, reason}                           (the worker could not answer)
//   {type: "pong", id}                                    (answer to ping)

const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d]; // "\0asm"

let runCalc = null; // PyProxy of a Python function str -> str, set once ready
let presentCalc = null; // PyProxy of calc.display.present_json(str, lang) -> str
let failed = false;

function post(message) {
  self.postMessage(message);
}

function withTimeout(promise, ms, stage) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timeout after ${ms} ms (${stage})`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// loadPyodide() can hang instead of rejecting when the wasm is missing: check it first.
async function preflightWasm(pyodideUrl) {
  const response = await fetch(new URL("pyodide.asm.wasm", pyodideUrl));
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

// The runtime download, the wheel download and the wasm pre-flight run in parallel; Python only
// starts once the wasm is known to be there, because loadPyodide() can hang on a missing wasm.
async function init({ pyodideUrl, wheelUrl, timeoutMs }) {
  const started = performance.now();
  const marks = {};
  const mark = (name) => { marks[name] = performance.timeOrigin + performance.now(); };
  mark("worker-start");
  let stage = "runtime-download";
  try {
    post({ type: "progress", stage });
    const preflight = preflightWasm(pyodideUrl);
    const loader = import(new URL("pyodide.mjs", pyodideUrl).href);
    const wheel = fetchWheel(wheelUrl);
    wheel.catch(() => {}); // awaited below; avoid an unhandled rejection meanwhile
    loader.catch(() => {});
    await withTimeout(preflight, timeoutMs, stage);
    const { loadPyodide } = await withTimeout(loader, timeoutMs, stage);
    mark("runtime-downloaded");
    stage = "runtime-start";
    post({ type: "progress", stage });
    const pyodide = await withTimeout(loadPyodide({ indexURL: pyodideUrl }), timeoutMs, stage);
    mark("runtime-started");
    stage = "calc-load";
    post({ type: "progress", stage });
    const wheelName = new URL(wheelUrl).pathname.split("/").pop();
    pyodide.unpackArchive(await withTimeout(wheel, timeoutMs, stage), "wheel", {
      filename: wheelName,
    });
    mark("wheel-unpacked");
    pyodide.runPython(PY_BRIDGE);
    runCalc = pyodide.globals.get("_nfg_run");
    presentCalc = pyodide.globals.get("_nfg_present");
    mark("calc-imported");
    post({ type: "ready", ms: performance.now() - started, marks });
  } catch (err) {
    failed = true;
    post({ type: "failed", stage, reason: String(err && err.message ? err.message : err) });
  }
}

function answer({ id, kind, params }) {
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
  if (!presentCalc) {
    post({ type: "error", id, reason: failed ? "failed" : "not-ready" });
    return;
  }
  try {
    const display = JSON.parse(presentCalc(JSON.stringify(request), lang));
    post({ type: "display", id, display });
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
