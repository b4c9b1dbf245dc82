// Make a Pyodide memory snapshot with calc and its presenter imported (run by build_snapshot.py).
//
//   node scripts/build_snapshot.mjs <pyodide dir> <wheel> <warm-up python file> <out snapshot>
//
// Same Pyodide as the browser (node_modules/pyodide): loadPyodide({_makeSnapshot: true}), the calc
// wheel unpacked, the warm-up Python run (imports + one presentation per calculator and language,
// so data and translation tables are parsed and cached in the heap), then makeMemorySnapshot().
// The browser loads it with loadPyodide({_loadSnapshot}); Pyodide itself rejects a snapshot of
// another build (magic number + BUILD_ID check), and the worker falls back to a normal start.

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, wheelPath, warmupPath, outPath] = process.argv.slice(2);
if (!outPath) {
  console.error("usage: build_snapshot.mjs <pyodide dir> <wheel> <warm-up .py> <out>");
  process.exit(2);
}

const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({
  indexURL: path.resolve(pyodideDir) + path.sep,
  _makeSnapshot: true,
  stdout: () => {},
});
pyodide.unpackArchive(new Uint8Array(fs.readFileSync(wheelPath)), "wheel", {
  filename: path.basename(wheelPath),
});
pyodide.runPython(fs.readFileSync(warmupPath, "utf-8"));
const snapshot = pyodide.makeMemorySnapshot();
fs.writeFileSync(outPath, snapshot);
console.log(`${outPath} ${snapshot.length}`);
