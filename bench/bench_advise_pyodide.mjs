// bench/bench_advise.py under Pyodide in Node (the browser's interpreter, without a page):
//   node bench/bench_advise_pyodide.mjs [runs]
// Copies calc/ and data/ into Pyodide's file system and runs the Python bench there (no CLI part).
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
const runs = Number(process.argv[2] || 20);
pyodide.runPython(
  `__file__ = "${work}/bench/bench_advise.py"\nimport sys\nsys.path.insert(0, "${work}")\n` +
  `sys.argv = ["bench_advise", "--runs", "${runs}", "--cli-runs", "0"]`,
);
const code = fs.readFileSync(path.join(root, "bench/bench_advise.py"), "utf8");
pyodide.runPython(code.replace('if __name__ == "__main__":', "if True:"));
