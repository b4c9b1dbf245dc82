// Calculator widgets: binds every .nfg-calc root on the page to the calc worker.
//
// This file formats nothing: the worker answers each input with calc.display.present (Python,
// the same function that prerendered the page) and this module moves its strings into the DOM.
//
// The page arrives with the first result prerendered (data-state="prerendered"). This module
// starts the worker at idle or first interaction (data-state="loading"), recomputes on every input
// change once it is ready (data-state="ready"), and keeps the prerendered / last good result when
// Python cannot load (data-state="failed") or an input is bad (message next to the field).

import { getCalcClient } from "./calc-client.js";
import { drawChart } from "./calc-chart.js";

const START_EVENTS = ["pointerdown", "focusin", "keydown", "touchstart"];

class CalculatorWidget {
  constructor(root) {
    this.root = root;
    this.config = JSON.parse(root.querySelector(".nfg-calc__config").textContent);
    this.form = root.querySelector(".nfg-calc__form");
    this.statusText = root.querySelector(".nfg-calc__status-text");
    this.controls = new Map();
    for (const el of this.form.querySelectorAll("input[name], select[name]")) {
      this.controls.set(el.name, el);
    }
    this.fieldSpecs = new Map(this.config.fields.map((spec) => [spec.name, spec]));
    this.sequence = 0;
    this.lastGood = this.config.prerendered; // calc.display.present result
    this.client = getCalcClient({
      pyodideUrl: new URL(this.config.pyodideUrl, document.baseURI).href,
      wheelUrl: new URL(this.config.wheelUrl, document.baseURI).href,
    });
    this.restoreFromUrl();
    this.updateVisibility();
    this.bind();
    // The chart of the prerendered result is drawn once the worker is ready (or failed): drawing
    // it earlier competes with Pyodide's start for the CPU. Its box is already sized (no shift).
  }

  // ---- inputs ------------------------------------------------------------------------------

  currentMode() {
    const modeControl = this.controls.get("mode");
    const id = modeControl ? modeControl.value : this.config.modes[0].id;
    return this.config.modes.find((m) => m.id === id) || this.config.modes[0];
  }

  rawValues() {
    const values = {};
    for (const [name, el] of this.controls) values[name] = el.value.trim();
    return values;
  }

  updateVisibility() {
    const mode = this.currentMode();
    const custom = this.controls.get("model") && this.controls.get("model").value === "custom";
    for (const field of this.form.querySelectorAll("[data-input]")) {
      const spec = this.fieldSpecs.get(field.dataset.input);
      const inMode = !spec.modes.length || spec.modes.includes(mode.id);
      field.hidden = !inMode || (spec.arch && !custom);
    }
    for (const dl of this.root.querySelectorAll(".nfg-calc__outputs")) {
      dl.hidden = dl.dataset.mode !== mode.id;
    }
    this.root.dataset.mode = mode.id;
  }

  // ---- URL state ---------------------------------------------------------------------------

  restoreFromUrl() {
    const query = new URLSearchParams(window.location.search);
    for (const [name, el] of this.controls) {
      if (!query.has(name)) continue;
      const value = query.get(name);
      if (el.tagName === "SELECT" && ![...el.options].some((o) => o.value === value)) continue;
      el.value = value;
    }
    this.urlRestored = [...this.controls.keys()].some((name) => query.has(name));
  }

  writeUrl() {
    const query = new URLSearchParams(window.location.search);
    const raw = this.rawValues();
    for (const name of this.controls.keys()) {
      if (raw[name] === "") query.delete(name);
      else query.set(name, raw[name]);
    }
    const url = `${window.location.pathname}?${query.toString()}${window.location.hash}`;
    window.history.replaceState(null, "", url);
  }

  // ---- worker ------------------------------------------------------------------------------

  bind() {
    this.form.addEventListener("input", () => this.onInput()); // selects fire input too
    this.form.addEventListener("submit", (event) => event.preventDefault());
    this.root.addEventListener("click", (event) => {
      const button = event.target.closest("[data-action]");
      if (button) this.onAction(button.dataset.action, button);
    });
    const start = () => this.start();
    for (const name of START_EVENTS) this.root.addEventListener(name, start, { once: true, passive: true });
    if (window.__nfgCalcBoot) start(); // the worker is already running (page head): bind now
    else if ("requestIdleCallback" in window) window.requestIdleCallback(start, { timeout: 50 });
    else window.setTimeout(start, 1);
  }

  start() {
    if (this.started) return;
    this.started = true;
    this.client.onStatus((status) => this.onStatus(status));
    this.client.start();
  }

  // The runtime download's <progress> bar (value = bytes received; its label, with the total
  // size, is formatted at build time): shown while the runtime loads.
  showProgress(status) {
    const bar = this.root.querySelector(".nfg-calc__progress");
    const label = this.root.querySelector(".nfg-calc__progress-label");
    if (!bar || !label) return;
    const downloading = status.state === "loading";
    bar.hidden = !downloading;
    label.hidden = !downloading;
    if (typeof status.bytes === "number") bar.value = status.bytes;
  }

  onStatus(status) {
    const strings = this.config.status;
    this.showProgress(status);
    if (status.state === "loading") {
      this.root.dataset.state = "loading";
      this.root.dataset.stage = status.stage || "";
      this.statusText.textContent = strings[status.stage] || strings.loading;
    } else if (status.state === "ready") {
      this.statusText.textContent = strings.ready;
      const computed = this.compute();
      const markReady = () => {
        this.root.dataset.state = "ready";
        delete this.root.dataset.stage;
      };
      // Inputs still at the prerendered defaults: the shown result is already what calc.api
      // returns for them (same code at build time), so the page is live at once; the compute
      // above only warms Python up. Otherwise ready waits for the result of the new inputs.
      if (this.inputsArePrerendered()) markReady();
      else computed.then(markReady);
    } else if (status.state === "failed") {
      this.renderChart(this.lastGood);
      this.root.dataset.state = "failed";
      this.root.dataset.stage = status.stage || "";
      this.statusText.textContent = strings.failed;
    }
  }

  inputsArePrerendered() {
    const raw = this.rawValues();
    const defaults = this.lastGood === this.config.prerendered ? this.config.defaults : null;
    if (!defaults) return false;
    return Object.entries(raw).every(([name, value]) => value === (defaults[name] ?? ""));
  }

  onInput() {
    this.updateVisibility();
    this.start();
    if (this.client.status.state === "ready") {
      this.compute();
    } else if (this.client.status.state === "loading") {
      this.statusText.textContent = this.config.status.stale;
    }
  }

  async compute() {
    const sequence = ++this.sequence;
    const request = { calculator: this.config.name, values: this.rawValues() };
    let display;
    try {
      display = await this.client.present(request, this.config.lang);
    } catch (err) {
      return; // the worker failed: onStatus shows the terminal state; the last result stays
    }
    if (sequence !== this.sequence) return; // a newer input superseded this one
    this.clearErrors();
    for (const error of display.errors || []) this.showError(error);
    if (!display.ok) return; // keep the last good result
    this.lastGood = display;
    this.renderResult(display);
    this.writeUrl();
    this.root.dataset.computed = String(sequence);
    this.root.dataset.hasError = String((display.errors || []).length > 0);
  }

  // ---- rendering: strings from calc.display.present into the DOM ---------------------------

  clearErrors() {
    for (const el of this.form.querySelectorAll(".nfg-calc__error")) el.textContent = "";
    for (const el of this.form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
    this.form.querySelector(".nfg-calc__form-error").textContent = "";
  }

  showError(error) {
    const control = this.controls.get(error.field);
    const field = control && control.closest("[data-input]");
    if (control && field && !field.hidden) {
      control.setAttribute("aria-invalid", "true");
      field.querySelector(".nfg-calc__error").textContent = error.message;
    } else {
      this.form.querySelector(".nfg-calc__form-error").textContent = error.message;
    }
  }

  renderResult(display) {
    const dl = this.root.querySelector(`.nfg-calc__outputs[data-mode="${display.mode}"]`);
    for (const output of display.outputs) {
      const dd = dl.querySelector(`[data-field="${output.field}"]`);
      if (!dd) continue;
      if (output.value === null || output.value === undefined) dd.removeAttribute("data-value");
      else dd.dataset.value = output.value;
      dd.textContent = output.text;
    }
    this.renderMath(display);
    this.renderChart(display);
  }

  renderMath(display) {
    const tbody = this.root.querySelector(".nfg-calc__math tbody");
    const rows = display.derivation.map((step) => {
      const tr = document.createElement("tr");
      const label = document.createElement("td");
      label.textContent = step.label;
      const formula = document.createElement("td");
      const code = document.createElement("code");
      code.textContent = step.formula;
      formula.append(code);
      const value = document.createElement("td");
      if (step.value !== null && step.value !== undefined) value.dataset.value = step.value;
      value.dataset.unit = step.unit;
      value.textContent = step.text;
      tr.append(label, formula, value);
      return tr;
    });
    tbody.replaceChildren(...rows);
  }

  renderChart(display) {
    const box = this.root.querySelector(".nfg-calc__chart");
    if (!display.chart) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    // Chart.js loads and draws only once the chart box comes near the viewport (long tasks
    // on a phone); until then the latest result waits here.
    this.pendingChart = display.chart;
    if (!("IntersectionObserver" in window)) {
      this.drawPendingChart(box);
      return;
    }
    if (!this.chartObserver) {
      this.chartObserver = new IntersectionObserver((entries) => {
        this.chartVisible = entries.some((entry) => entry.isIntersecting);
        if (this.chartVisible) this.drawPendingChart(box);
      }, { rootMargin: "200px" });
      this.chartObserver.observe(box);
    } else if (this.chartVisible) {
      this.drawPendingChart(box);
    }
  }

  drawPendingChart(box) {
    const chart = this.pendingChart;
    if (!chart) return;
    this.pendingChart = null;
    drawChart(box, chart, this.config.chartUrl).catch(() => {
      box.hidden = true; // charts are an aid; the numbers stay
    });
  }

  // ---- actions -----------------------------------------------------------------------------

  exportRows() {
    const display = this.lastGood;
    const rows = [["section", "name", "value", "unit"]];
    for (const [name, value] of Object.entries(display.values)) {
      if (value !== "" && value !== null) rows.push(["input", name, value, ""]);
    }
    for (const output of display.outputs) {
      rows.push(["result", output.field, output.value === null ? "" : output.value, output.unit]);
    }
    for (const step of display.derivation) {
      rows.push(["derivation", step.key, step.value === null ? "" : step.value, step.unit]);
    }
    return rows;
  }

  download(filename, type, text) {
    const url = URL.createObjectURL(new Blob([text], { type }));
    const a = document.createElement("a");
    a.href = url;
    a.download = filename;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  // No clipboard API (or it refused): the link in a selected text field next to the buttons,
  // copied with execCommand where the browser still allows it, else for the reader to copy.
  showLink(url, done) {
    let field = this.root.querySelector(".nfg-calc__link");
    if (!field) {
      field = document.createElement("input");
      field.type = "text";
      field.readOnly = true;
      field.className = "nfg-calc__link";
      field.setAttribute("aria-label", this.config.action.copy_link_manual);
      this.root.querySelector(".nfg-calc__actions").after(field);
    }
    field.value = url;
    field.focus();
    field.select();
    let copied = false;
    try {
      copied = document.execCommand("copy");
    } catch (err) {
      copied = false;
    }
    if (copied) done();
  }

  onAction(action, button) {
    const name = `nfg-${this.config.name}`;
    if (action === "export-csv") {
      const csv = this.exportRows().map((row) => row.map((cell) => {
        const text = String(cell);
        return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
      }).join(",")).join("\n");
      this.download(`${name}.csv`, "text/csv", `${csv}\n`);
    } else if (action === "export-json") {
      const { mode, values, responses } = this.lastGood;
      const body = { calculator: this.config.name, mode, values, responses };
      this.download(`${name}.json`, "application/json", `${JSON.stringify(body, null, 2)}\n`);
    } else if (action === "copy-link") {
      this.writeUrl();
      const url = window.location.href;
      const done = () => { button.textContent = this.config.action.copied; };
      const fallback = () => this.showLink(url, done);
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(url).then(done, fallback);
      } else {
        fallback();
      }
    } else if (action === "reset") {
      for (const [name, el] of this.controls) {
        el.value = this.config.defaults[name] ?? "";
      }
      this.onInput();
    }
  }
}

function mount() {
  for (const root of document.querySelectorAll(".nfg-calc")) {
    if (root.dataset.mounted) continue;
    root.dataset.mounted = "true";
    try {
      root.nfgWidget = new CalculatorWidget(root);
    } catch (err) {
      root.dataset.state = "failed";
    }
  }
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mount);
else mount();
