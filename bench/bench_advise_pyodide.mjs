// The advise bench (bench/bench_advise.py's requests) under Pyodide in Node: the browser's
// interpreter without a page.  node bench/bench_advise_pyodide.mjs [runs] [present] [cold]
// Per request: p50/p95 of the Node process's CPU time (process.cpuUsage: load on a shared machine
// does not inflate it; Pyodide runs on the one main thread) and of wall time, per calc.api.run.
import { loadPyodide } from "../node_modules/pyodide/pyodide.mjs";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const pyodide = await loadPyodide({ indexURL: path.join(root, "node_modules/pyodide") + "/" });
function copy(dir, target) {
  pyodide.FS.mkdirTree(target);
  for (const name of fs.readdirSync(dir)) {
    const source = path.join(dir, name);
    if (fs.statSync(source).isDirectory()) {
      if (name !== "__pycache__") copy(source, `${target}/${name}`);
    } else {
      pyodide.FS.writeFile(`${target}/${name}`, fs.readFileSync(source));
    }
  }
}
const work = "/home/pyodide/work";
copy(path.join(root, "calc"), `${work}/calc`);
copy(path.join(root, "data"), `${work}/data`);
copy(path.join(root, "bench"), `${work}/bench`);
const runs = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) || 20);
// "present" also times the advisor page's whole recompute: calc.display.present (search + table,
// chart, links and snippets as text), what the worker runs per input change
const presentOnly = process.argv.includes("present");
// "cold": every run asks with a new input length, so nothing kept from an earlier search answers
// (the advisor page's worst case: a new workload)
const cold = process.argv.includes("cold");
pyodide.runPython(`
import json, sys
sys.path.insert(0, "${work}")
sys.path.insert(0, "${work}/bench")
__file__ = "${work}/bench/bench_advise.py"
import bench_advise
from calc.api import run
REQUESTS = bench_advise.REQUESTS
from calc.display import present
FORMS = [
    ("page: defaults (8B)", {}),
    ("page: 70B, TTFT<=1 s, TPOT<=50 ms, 2 req/s", {"model": "llama-3.1-70b", "ttft_max": "1",
     "tpot_max": "0.05", "request_rate": "2"}),
    ("page: 8B, TPOT<=20 ms, 1e9 tokens/day", {"input_len": "2048", "output_len": "512",
     "tpot_max": "0.02", "tokens_per_day": "1e9"}),
    ("page: Mixtral, Neuron only", {"model": "mixtral-8x7b", "family": "neuron"}),
]
if ${presentOnly ? "True" : "False"}:
    REQUESTS = [(name, "present", values) for name, values in FORMS]
COLD = ${cold ? "True" : "False"}
def one(index, run=0):
    name, kind, params = REQUESTS[index]
    if COLD and kind in ("present", "advise"):
        params = {**params, "input_len": (str if kind == "present" else int)(
            int(params.get("input_len", 1024)) + 1 + run)}
    if kind == "present":
        shown = present({"calculator": "advisor", "values": params}, "ja")
        rows = (shown.get("advisor") or {}).get("rows", [])
        return json.dumps([name, "-", len(rows)])
    response = run({"schema_version": 1, "kind": kind, "params": params})
    result = response["result"]
    return json.dumps([name, result.get("perf_evaluations", "-"), len(result["options"])])
`);
const count = pyodide.runPython("len(REQUESTS)");
const one = pyodide.globals.get("one");
const pct = (values, q) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.round(q * (s.length - 1))))];
};
console.log(`${"request".padEnd(42)} ${"cpu p50".padStart(8)} ${"cpu p95".padStart(8)} ` +
  `${"wall p50".padStart(9)} ${"wall p95".padStart(9)}`);
let worst = 0;
for (let i = 0; i < count; i++) {
  const [name] = JSON.parse(one(i));  // warm-up
  const cpu = [], wall = [];
  for (let r = 0; r < runs; r++) {
    const c0 = process.cpuUsage(), w0 = process.hrtime.bigint();
    one(i, r + 1);
    const c = process.cpuUsage(c0);
    wall.push(Number(process.hrtime.bigint() - w0) / 1e6);
    cpu.push((c.user + c.system) / 1000);
  }
  worst = Math.max(worst, pct(cpu, 0.95));
  console.log(`${name.padEnd(42)} ${pct(cpu, 0.5).toFixed(1).padStart(8)} ` +
    `${pct(cpu, 0.95).toFixed(1).padStart(8)} ${pct(wall, 0.5).toFixed(1).padStart(9)} ` +
    `${pct(wall, 0.95).toFixed(1).padStart(9)}`);
}
console.log(`worst CPU p95 (Pyodide ${pyodide.version}, Node ${process.version}): ${worst.toFixed(1)} ms`);
