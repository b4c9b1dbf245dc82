// Calculator widgets: binds every .nfg-calc root on the page to the calc worker.
//
// This file formats nothing: the worker answers each input with calc.display.present (Python,
// the same function that prerendered the page) and this module moves its strings into the DOM.
//
// The page arrives with the first result prerendered (data-state="prerendered"). This module
// starts the worker at idle or first interaction (data-state="loading"), recomputes on every input
// change once it is ready (data-state="ready"), and keeps the prerendered / last good result when
// Python cannot load (data-state="failed") or an input is bad (message next to the field).
//
// data-results says whether the numbers shown answer the inputs on screen:
//   prerendered  the build's result for the default inputs
//   live         the worker's answer to exactly the inputs on screen
//   updating     inputs changed; the struck-through numbers belong to the previous inputs
//   cleared      the model, instance or mode changed (or a shared link is still loading):
//                the previous setup's numbers were removed
//   error        the inputs on screen have an error (messages next to the fields); numbers of
//                the previous inputs, if any, stay struck through (not exported, not labelled live)
//   stale        the worker failed: the numbers shown do not answer the inputs on screen
// Only "live" (and "prerendered" with the default inputs) is ever labelled live.

import { getCalcClient } from "./calc-client.js";
import { drawChart } from "./calc-chart.js";

const START_EVENTS = ["pointerdown", "focusin", "keydown", "touchstart"];
const URL_DELAY_MS = 100; // the address bar follows the inputs this long after the result
// Query parameters that are not calculator inputs, and so not named as ignored: `pin`
// (calc-pin.js says itself when one cannot be used) and `dropped` (the inputs the language
// switcher, lang-state.js, could not carry over from the other language's page).
const LINK_PARAMS = new Set(["pin", "dropped"]);
// What a link says besides the inputs (an input given twice, a pin that could not be restored,
// inputs not carried over) reaches present() as the request's `link`
// (calc.display.lang_state.link_facts).

// Only what changed is written: an unchanged text, attribute or list is left as it is (no style
// recalculation or layout for it, and the worker's next answer does not wait behind that work).
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

function setData(el, name, value) {
  if (value === null || value === undefined) {
    if (name in el.dataset) delete el.dataset[name];
  } else if (el.dataset[name] !== String(value)) {
    el.dataset[name] = value;
  }
}

// Rebuilds a list only when its content differs from the one last built from `items`.
function listChanged(parent, items) {
  const key = JSON.stringify(items);
  if (parent.nfgKey === key) return false;
  parent.nfgKey = key;
  return true;
}

class CalculatorWidget {
  constructor(root) {
    this.root = root;
    this.config = JSON.parse(root.querySelector(".nfg-calc__config").textContent);
    this.form = root.querySelector(".nfg-calc__form");
    this.statusText = root.querySelector(".nfg-calc__status-text");
    this.controls = new Map();
    for (const el of this.form.querySelectorAll("input[name], select[name], textarea[name]")) {
      this.controls.set(el.name, el);
    }
    this.fieldSpecs = new Map(this.config.fields.map((spec) => [spec.name, spec]));
    this.sequence = 0;
    this.lastGood = this.config.prerendered; // calc.display.present result
    this.lastDisplay = null; // the newest answer, good or not (its `values` are the inputs it read)
    this.client = getCalcClient({
      pyodideUrl: new URL(this.config.pyodideUrl, document.baseURI).href,
      wheelUrl: new URL(this.config.wheelUrl, document.baseURI).href,
    });
    this.restoreFromUrl();
    this.updateVisibility();
    this.bind();
    this.bindConfigImport();
    if (this.urlRestored && !this.inputsArePrerendered()) {
      // A shared link: its own setup or a loading state, never the defaults' numbers.
      this.clearResults("cleared");
    } else {
      // the prerendered numbers answer the link (calc-boot.html hid them until known)
      document.documentElement.removeAttribute("data-nfg-link");
    }
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
    // inputs the link gives more than once: refused by Python (given_twice) until the reader
    // edits them; the form shows the first value, the address keeps them all
    this.linkTwice = {};
    this.linkPin = null; // the link's `pin` values calc-pin.js could not restore
    // inputs the other language's page could not carry over: named in a note until edited
    this.linkDropped = (query.get("dropped") || "").split(",")
      .filter((name) => this.controls.has(name) || name === "pin").slice(0, 40);
    for (const [name, el] of this.controls) {
      if (!query.has(name)) continue;
      const given = query.getAll(name);
      if (given.length > 1) this.linkTwice[name] = given;
      const value = given[0];
      // an id this page does not offer stays as given, so Python names it in an error
      if (el.tagName === "SELECT") this.keepOption(el, value);
      el.value = value;
    }
    const known = new Set([...this.controls.keys()]);
    this.unknownFromLink = [...new Set([...query.keys()]
      .filter((name) => !known.has(name) && !LINK_PARAMS.has(name)))];
    this.urlRestored = [...query.keys()].length > 0;
  }

  // The request's `link` ({twice, pin}: what is set of them), or null when there is nothing to say.
  linkFacts(facts) {
    const said = Object.fromEntries(Object.entries(facts).filter(([, v]) => v
      && (Array.isArray(v) || Object.keys(v).length)));
    return Object.keys(said).length ? said : null;
  }

  // ---- the language switcher (lang-state.js) -----------------------------------------------

  // True when Python's newest answer read exactly the inputs on screen.
  answered() {
    const shown = this.lastDisplay || this.lastGood;
    if (!shown || !shown.values) return false;
    return Object.entries(this.rawValues()).every(([name, value]) => shown.values[name] === value);
  }

  // The inputs as the page in `lang` reads them: {values, dropped}. Python writes the numbers of
  // an input its newest answer read for that language ("10,000" here is "10000" in Spanish). An
  // input typed since (or not yet read: a link still loading), or one with an error (Python
  // leaves it out of values_by_lang), is never carried as typed, because the same text can be
  // another number there ("12.345" is 12345 in Spanish, 12.345 in English): a select carries its
  // id, a text input is dropped and named in `dropped`, which the other page says in a note; so
  // is a pasted config.json, and an input this page was itself opened without.
  carriedTo(lang) {
    const shown = this.lastDisplay || this.lastGood;
    const read = (shown && shown.values) || {};
    const byLang = ((shown && shown.values_by_lang) || {})[lang] || {};
    const dropped = [...this.linkDropped];
    const values = {};
    for (const [name, text] of Object.entries(this.rawValues())) {
      if (this.linkDropped.includes(name)) continue;
      // a pasted config.json: never in an address (writeUrl leaves it out too; a large one
      // makes the link too long to open), so it is named instead
      if (this.controls.get(name).tagName === "TEXTAREA") {
        if (text !== "") dropped.push(name);
        continue;
      }
      if (read[name] === text && name in byLang) values[name] = byLang[name];
      else if (this.controls.get(name).tagName === "SELECT") values[name] = text;
      else dropped.push(name);
    }
    return { values, dropped };
  }

  // The reader set what the link left out (calc-pin.js: a pin or unpin): no longer named.
  forgetDropped(name) {
    if (!this.linkDropped.includes(name)) return;
    this.linkDropped = this.linkDropped.filter((dropped) => dropped !== name);
    this.writeUrl(this.current ? this.current.values : undefined);
    if (this.client.status.state === "ready") this.compute();
  }

  // True while an answer to the inputs on screen (and the link's pin) can still come: not yet
  // answered, no error of the worker's for them, the worker not failed.
  awaitingAnswer() {
    const restoring = this.root.nfgPin && this.root.nfgPin.restoring;
    const refused = this.failedFor === JSON.stringify(this.rawValues()); // worker's error
    return (!this.answered() || Boolean(restoring)) && !refused
      && this.client.status.state !== "failed";
  }

  // Resolves once an answer reads the inputs on screen (and the link's pin is restored or
  // refused), the worker has failed, or after `ms`.
  settled(ms) {
    const start = Date.now();
    return new Promise((resolve) => {
      const check = () => {
        if (!this.awaitingAnswer() || Date.now() - start > ms) {
          resolve();
        } else {
          setTimeout(check, 50);
        }
      };
      check();
    });
  }

  // calc-pin.js: the link's `pin` values it could not restore (null: none, or pinned since);
  // present() announces them in a note
  setLinkPin(values) {
    if (!values && !this.linkPin) return;
    this.linkPin = values;
    if (this.client.status.state === "ready") this.compute();
  }

  keepOption(select, value) {
    if ([...select.options].some((o) => o.value === value)) return;
    const option = document.createElement("option");
    option.value = value;
    option.textContent = value;
    option.dataset.unknown = "true";
    select.append(option);
  }

  // The address follows the inputs a moment after the numbers (replaceState costs a few ms on the
  // main thread: not in the way of showing the result). The delayed write records the values the
  // shown result answers, never inputs typed since (their result is not on screen yet); the
  // copy-link action and leaving the page write the inputs on screen at once.
  scheduleUrl(values) {
    clearTimeout(this.urlTimer);
    this.urlTimer = setTimeout(() => this.writeUrl(values), URL_DELAY_MS);
  }

  writeUrl(values) {
    clearTimeout(this.urlTimer);
    this.urlTimer = null;
    if (!values) this.urlDirty = false;
    const query = new URLSearchParams(window.location.search);
    const raw = values || this.rawValues();
    for (const name of this.controls.keys()) {
      if (this.linkTwice[name]) continue; // still refused: a copied link says the same
      // an empty input is left out only where the page's default is empty too: "" where the
      // page fills one (the advisor's automatic dtype, an emptied field) stays as "name="
      const blank = raw[name] === "" && (this.config.defaults[name] ?? "") === "";
      if (blank || this.controls.get(name).tagName === "TEXTAREA") query.delete(name);
      else query.set(name, raw[name]);
    }
    if (this.linkDropped.length) query.set("dropped", this.linkDropped.join(","));
    else query.delete("dropped");
    const url = `${window.location.pathname}?${query.toString()}${window.location.hash}`;
    window.history.replaceState(null, "", url);
  }

  // ---- worker ------------------------------------------------------------------------------

  bind() {
    this.form.addEventListener("input", (event) => this.onInput(event)); // selects too
    window.addEventListener("pagehide", () => { if (this.urlTimer || this.urlDirty) this.writeUrl(); });
    this.form.addEventListener("submit", (event) => event.preventDefault());
    this.root.addEventListener("click", (event) => {
      const button = event.target.closest("[data-action]");
      if (!button) return;
      event.preventDefault();
      this.onAction(button.dataset.action, button);
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
    const retry = this.root.querySelector(".nfg-calc__retry");
    retry.hidden = status.state !== "failed";
    this.root.dataset.restarts = String(this.client.restarts || 0);
    if (status.state === "loading") {
      this.root.dataset.state = "loading";
      this.root.dataset.stage = status.stage || "";
      setText(this.statusText, strings[status.stage] || strings.loading);
      if (status.stage === "restarting") this.markNotLive("updating");
    } else if (status.state === "ready") {
      setText(this.statusText, strings.ready);
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
      this.root.dataset.state = "failed";
      this.root.dataset.stage = status.stage || "";
      const stuck = status.stage === "stuck" || status.stage === "timeout";
      setText(this.statusText, stuck ? strings.stuck : strings.failed);
      if (this.inputsArePrerendered()) this.renderChart(this.lastGood);
      else this.markNotLive("stale");
    }
  }

  // The shown numbers no longer answer the inputs on screen: strike them through (or keep them so).
  markNotLive(state) {
    const current = this.root.dataset.results;
    if (current === "cleared" || (current === "error" && state !== "stale")) return;
    this.root.dataset.results = state;
  }

  clearResults(state) {
    for (const dd of this.root.querySelectorAll(".nfg-calc__outputs dd")) {
      dd.textContent = "";
      dd.removeAttribute("data-value");
      dd.removeAttribute("data-placeholder");
    }
    for (const basis of this.root.querySelectorAll(".nfg-calc__basis")) basis.hidden = true;
    this.root.querySelector(".nfg-calc__math tbody").replaceChildren();
    this.root.querySelector(".nfg-calc__verdict").hidden = true;
    const notes = this.root.querySelector(".nfg-calc__notes");
    notes.replaceChildren();
    notes.nfgKey = undefined; // rebuilt by the next result, whatever it says
    this.pendingChart = null;
    this.root.querySelector(".nfg-calc__chart").hidden = true;
    this.current = null;
    this.root.dataset.results = state;
  }

  inputsArePrerendered() {
    if (Object.keys(this.linkTwice).length) return false; // refused, whatever the form shows
    const raw = this.rawValues();
    const defaults = this.lastGood === this.config.prerendered ? this.config.defaults : null;
    if (!defaults) return false;
    return Object.entries(raw).every(([name, value]) => value === (defaults[name] ?? ""));
  }

  onInput(event) {
    const name = event && event.target ? event.target.name : null;
    this.urlDirty = true;
    this.linkUnknown = null;
    if (name) delete this.linkTwice[name]; // the reader typed the value meant
    if (name) this.linkDropped = this.linkDropped.filter((dropped) => dropped !== name);
    this.updateVisibility();
    this.start();
    // A new model, custom shape, instance or mode: the old numbers describe another setup.
    const spec = name ? this.fieldSpecs.get(name) : null;
    if (name === "model" || name === "instance" || name === "mode" || (spec && spec.arch)) {
      this.clearResults("cleared");
      setText(this.statusText, this.config.status.cleared);
    } else {
      this.markNotLive("updating");
    }
    if (this.client.status.state === "ready") {
      setText(this.statusText, this.config.status.updating);
      this.compute();
    } else if (this.client.status.state === "loading") {
      setText(this.statusText, this.config.status.stale);
    }
  }

  async compute() {
    const sequence = ++this.sequence;
    const request = { calculator: this.config.name, values: this.rawValues() };
    if (this.unknownFromLink && this.unknownFromLink.length) request.unknown = this.unknownFromLink;
    const facts = this.linkFacts({ twice: this.linkTwice, pin: this.linkPin,
                                   dropped: this.linkDropped });
    if (facts) request.link = facts;
    let display;
    try {
      display = await this.client.present(request, this.config.lang);
    } catch (err) {
      // restarting (the client recomputes once ready) or failed (onStatus says so); an error
      // the worker returned for this request: said in the status, numbers not live
      if (sequence === this.sequence && this.client.status.state === "ready") {
        this.markNotLive("stale");
        setText(this.statusText, this.config.status.request_failed);
        this.failedFor = JSON.stringify(request.values); // no answer will come for these
      }
      return;
    }
    if (sequence !== this.sequence) return; // a newer input superseded this one
    this.lastDisplay = display;
    this.clearErrors();
    for (const error of display.errors || []) this.showError(error);
    this.applyChoices(display);
    this.renderNotes(display);
    this.renderVerdict(display);
    document.documentElement.removeAttribute("data-nfg-link");
    this.renderRefused(display);
    if (display.ok) {
      this.lastGood = display;
      this.current = (display.errors || []).length ? null : display;
      this.renderResult(display);
      // live only when every input on screen was used: an error in a secondary input (the
      // price page's token or run fields) leaves the shown numbers marked, not live
      const clean = !(display.errors || []).length;
      this.root.dataset.results = clean ? "live" : "error";
      setText(this.statusText, clean ? this.config.status.ready : this.config.status.input_error);
    } else {
      // inputs with an error: the previous numbers stay only struck through and marked as not live
      // (after a new model / instance / mode or a shared link they were already removed)
      this.root.dataset.results = "error";
      this.current = null;
      setText(this.statusText, this.config.status.input_error);
    }
    this.scheduleUrl(request.values);
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
      const box = this.form.querySelector(".nfg-calc__form-error");
      box.textContent = box.textContent ? `${box.textContent} ${error.message}` : error.message;
    }
  }

  renderResult(display) {
    const dl = this.root.querySelector(`.nfg-calc__outputs[data-mode="${display.mode}"]`);
    for (const output of display.outputs) {
      const dd = dl.querySelector(`[data-field="${output.field}"]`);
      if (!dd) continue;
      // a request refused by an input error: its outputs keep their last good text, struck
      // through with the others (the error state), instead of turning into "—"
      const response = (display.responses || {})[output.request];
      if (response && response.ok === false) continue;
      setData(dd, "value", output.value);
      setData(dd, "placeholder", null);
      setText(dd, output.text);
      const basis = dl.querySelector(`[data-basis-for="${output.field}"]`);
      if (basis) {
        setText(basis, output.basis || "");
        if (basis.hidden !== !output.basis) basis.hidden = !output.basis;
      }
    }
    this.renderMath(display);
    this.renderChart(display);
  }

  // Outputs of a request refused by an input error: where no number of the previous inputs is
  // shown (removed after a new setup or a link, or never computed), the presenter's placeholder
  // text ("not computed: see the error at the inputs") instead of a blank; numbers of the
  // previous inputs stay, struck through (renderResult leaves them).
  renderRefused(display) {
    const dl = this.root.querySelector(`.nfg-calc__outputs[data-mode="${display.mode}"]`);
    if (!dl) return;
    for (const output of display.outputs || []) {
      const response = (display.responses || {})[output.request];
      if (!response || response.ok !== false) continue;
      const dd = dl.querySelector(`[data-field="${output.field}"]`);
      if (!dd || (dd.textContent !== "" && !("placeholder" in dd.dataset))) continue;
      setData(dd, "placeholder", "");
      setText(dd, output.text);
    }
  }

  // Options that depend on other inputs (the dtypes of the chosen instance), from Python.
  applyChoices(display) {
    for (const [name, options] of Object.entries(display.choices || {})) {
      const select = this.controls.get(name);
      if (!select || select.tagName !== "SELECT") continue;
      const value = select.value;
      if (!listChanged(select, options) && select.value === value
          && [...select.options].some((o) => o.value === value)) continue;
      const items = options.map((opt) => {
        const option = document.createElement("option");
        option.value = opt.value;
        option.textContent = opt.label;
        return option;
      });
      select.replaceChildren(...items);
      this.keepOption(select, value); // a value no longer offered stays, with its error shown
      select.value = value;
    }
  }

  renderNotes(display) {
    const list = this.root.querySelector(".nfg-calc__notes");
    if (!listChanged(list, display.notes || [])) return;
    list.replaceChildren(...(display.notes || []).map((note) => {
      const li = document.createElement("li");
      li.dataset.note = note.key;
      li.textContent = note.text;
      return li;
    }));
  }

  renderVerdict(display) {
    const box = this.root.querySelector(".nfg-calc__verdict");
    const verdict = display.verdict;
    box.hidden = !verdict;
    if (!verdict) return;
    setText(box.querySelector(".nfg-calc__verdict-text"), verdict.text);
    setText(box.querySelector(".nfg-calc__verdict-reason"), verdict.reason || "");
    const list = box.querySelector(".nfg-calc__suggestions");
    if (listChanged(list, verdict.suggestions)) list.replaceChildren(...verdict.suggestions.map((suggestion) => {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = "#";
      a.dataset.action = "suggest";
      a.dataset.change = suggestion.change;
      a.dataset.values = JSON.stringify(suggestion.values);
      a.textContent = suggestion.text;
      li.append(a);
      return li;
    }));
    box.querySelector(".nfg-calc__suggestions-heading").hidden = !verdict.suggestions.length;
  }

  // ---- config.json import: pasted into the textarea, chosen or dropped as a file -----------

  bindConfigImport() {
    const text = this.controls.get("hf_config");
    if (!text) return;
    const field = text.closest("[data-input]");
    const load = (file) => {
      if (!file) return;
      file.text().then((content) => {
        text.value = content;
        field.querySelector(".nfg-calc__hint").textContent =
          this.config.trust.config_loaded.replace("{name}", file.name);
        text.dispatchEvent(new Event("input", { bubbles: true }));
      }, () => {
        field.querySelector(".nfg-calc__error").textContent = this.config.trust.config_read_failed;
      });
    };
    field.querySelector("[data-config-file]").addEventListener("change", (event) => {
      event.stopPropagation();
      load(event.target.files[0]);
    });
    field.addEventListener("dragover", (event) => event.preventDefault());
    field.addEventListener("drop", (event) => {
      event.preventDefault();
      load(event.dataTransfer && event.dataTransfer.files[0]);
    });
  }

  renderMath(display) {
    const tbody = this.root.querySelector(".nfg-calc__math tbody");
    // the same steps as shown (labels, formulas): only their values change in place
    const shape = JSON.stringify(display.derivation.map((step) => [step.label, step.formula]));
    if (tbody.nfgShape === shape && tbody.rows.length === display.derivation.length) {
      display.derivation.forEach((step, index) => {
        const value = tbody.rows[index].cells[2];
        setData(value, "value", step.value);
        setData(value, "unit", step.unit);
        setText(value, step.text);
      });
      return;
    }
    tbody.nfgShape = shape;
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

  // What may be exported: the result that answers the inputs on screen, else nothing.
  exportable() {
    const state = this.root.dataset.results;
    if (state === "live") return this.current;
    if (state === "prerendered" && this.inputsArePrerendered()) return this.lastGood;
    return null;
  }

  exportRows(display) {
    const rows = [["section", "name", "value", "unit"]];
    for (const [name, value] of Object.entries(display.export_values || {})) {
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

  exportAs(action, name, display) {
    if (action === "export-csv") {
      const csv = this.exportRows(display).map((row) => row.map(csvCell).join(",")).join("\n");
      this.download(`${name}.csv`, "text/csv", `${csv}\n`);
    } else {
      const { mode, responses } = display;
      const body = { calculator: this.config.name, mode, values: display.export_values,
                     responses };
      this.download(`${name}.json`, "application/json", `${JSON.stringify(body, null, 2)}\n`);
    }
  }

  // A suggested setup that fits: its values into the form, then compute.
  applySuggestion(link) {
    const values = JSON.parse(link.dataset.values || "{}");
    for (const [name, value] of Object.entries(values)) {
      const el = this.controls.get(name);
      if (!el) continue;
      if (el.tagName === "SELECT") this.keepOption(el, value);
      el.value = value;
      delete this.linkTwice[name];
    }
    this.onInput({ target: this.controls.get("instance") || null });
  }

  onAction(action, button) {
    const name = `nfg-${this.config.name}`;
    if (action === "export-csv" || action === "export-json") {
      const display = this.exportable();
      if (!display) {
        setText(this.statusText, this.config.status.updating);
        return;
      }
      this.exportAs(action, name, display);
    } else if (action === "suggest") {
      this.applySuggestion(button);
    } else if (action === "retry") {
      this.client.retry();
    } else if (action === "copy-link") {
      this.writeUrl();
      const url = window.location.href;
      // a pasted config.json stays out of the address (too long for a link): say so
      const pasted = (this.controls.get("hf_config")?.value || "").trim() !== "";
      const done = () => {
        button.textContent = pasted ? this.config.action.copied_without_config : this.config.action.copied;
      };
      const fallback = () => this.showLink(url, done);
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(url).then(done, fallback);
      } else {
        fallback();
      }
    } else if (action === "reset") {
      this.linkTwice = {};
      for (const [name, el] of this.controls) {
        el.value = this.config.defaults[name] ?? "";
      }
      this.onInput();
    }
  }
}

// A spreadsheet must not read a cell as a formula: = + - @ (and tab / CR) get a leading quote.
function csvCell(cell) {
  let text = String(cell);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
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
