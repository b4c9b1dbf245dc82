// The advise bench (bench/bench_advise.py's requests) under Pyodide in Node: the browser's
// interpreter without a page.  node bench/bench_advise_pyodide.mjs [runs]
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
const runs = Number(process.argv[2] || 20);
pyodide.runPython(`
import json, sys
sys.path.insert(0, "${work}")
sys.path.insert(0, "${work}/bench")
__file__ = "${work}/bench/bench_advise.py"
import bench_advise
from calc.api import run
REQUESTS = bench_advise.REQUESTS
def one(index):
    name, kind, params = REQUESTS[index]
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
    one(i);
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
