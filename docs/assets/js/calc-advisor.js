// The advisor page: moves calc.display.advisor's strings into the DOM (options table, Pareto
// chart, links into the speed calculator, serving snippets). It formats nothing: every text,
// tick and tooltip comes from Python (the build's prerender, then the worker through
// calc-widget.js, whose last good result is root.nfgWidget.lastGood). Sorting reorders rows by
// the row order Python gives per column.
//
// The section is one more output of the widget and follows its data-results: the options of
// the result the widget's numbers show, struck through (calc.css) while they do not answer the
// inputs (updating, error, stale), and none at all once the widget removed its numbers
// (cleared: a new model, a shared link not yet computed) until a new result comes, so an error
// right after a link never shows the prerendered defaults' options.

import { loadChartJs } from "./calc-chart.js";

const root = document.querySelector('.nfg-calc[data-calc="advisor"]');
let chart = null;
let pendingChart = null;
let chartVisible = false;
let sortKey = null;
let sortDescending = false;
let current = null; // the calc.display.advisor result in the table (null: none shown)
// What the section shows: PRERENDERED (the build's result), a widget result (present()), or null
// (emptied); `removed`: the widget's result whose numbers the widget removed (cleared).
const PRERENDERED = "prerendered";
let shown = PRERENDERED;
let removed = null;

function element(tag, attributes, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value !== null && value !== undefined) el.setAttribute(name, value);
  }
  el.append(...children);
  return el;
}

// ---- table ---------------------------------------------------------------------------------

function snippetCell(advisor, snippet) {
  const td = element("td", { "data-field": "snippet" });
  if (!snippet.text) {
    td.append(snippet.summary, ...snippet.notes.map((note) => ` (${note})`));
    return td;
  }
  const details = element("details", {}, element("summary", {}, snippet.summary),
    element("p", {}, `${advisor.needs_label}: ${snippet.version}`),
    element("pre", {}, element("code", {}, snippet.text)),
    ...snippet.notes.map((note) => element("p", {}, note)));
  td.append(details);
  return td;
}

function rowElement(advisor, row) {
  const tr = element("tr", { "data-row": row.id, "data-kind": row.kind,
                             "data-front": row.front ? "true" : null });
  for (const column of advisor.columns) {
    const cell = row.cells[column.key];
    const td = element("td", { "data-field": column.key, "data-value": cell.value },
      element("span", { class: "nfg-adv__text" }, cell.text));
    if (column.key === "instance" && row.front) {
      td.append(" ", element("span", { class: "nfg-adv__front" }, row.front_text));
    }
    tr.append(td);
  }
  // no href: the option cannot be opened as it is (a pasted config.json; the note says why)
  tr.append(element("td", { "data-field": "link" }, row.link.href
    ? element("a", { href: row.link.href, "data-link": "speed" }, row.link.text)
    : row.link.text));
  tr.append(snippetCell(advisor, row.snippet));
  return tr;
}

function renderTable(advisor) {
  const table = root.querySelector(".nfg-adv__table");
  const head = element("tr");
  for (const column of advisor.columns) {
    head.append(element("th", { scope: "col", "data-key": column.key, "aria-sort": "none" },
      element("button", { type: "button", "data-sort": column.key }, column.label)));
  }
  head.append(element("th", { scope: "col" }, advisor.link_label),
    element("th", { scope: "col" }, advisor.snippet_label));
  table.tHead.replaceChildren(head);
  table.caption.textContent = advisor.caption;
  table.tBodies[0].replaceChildren(...advisor.rows.map((row) => rowElement(advisor, row)));
  if (sortKey && !advisor.order[sortKey]) sortKey = null;
  applySort();
}

function applySort() {
  if (!current) return;
  const table = root.querySelector(".nfg-adv__table");
  const body = table.tBodies[0];
  const byId = new Map([...body.rows].map((tr) => [tr.dataset.row, tr]));
  let ids = current.rows.map((row) => row.id); // the ranking
  if (sortKey) {
    ids = [...current.order[sortKey]];
    if (sortDescending) ids.reverse();
  }
  body.append(...ids.map((id) => byId.get(id)).filter(Boolean));
  for (const th of table.tHead.querySelectorAll("th[data-key]")) {
    const state = th.dataset.key !== sortKey ? "none" : (sortDescending ? "descending" : "ascending");
    th.setAttribute("aria-sort", state);
  }
  root.dataset.sort = sortKey ? `${sortKey}:${sortDescending ? "desc" : "asc"}` : "";
}

// ---- chart ---------------------------------------------------------------------------------

const KIND_COLORS = { neuron: "#f28e2b", gpu: "#4e79a7" };

function logScale(axis, label, color) {
  return {
    type: "logarithmic",
    min: axis.min,
    max: axis.max,
    title: { display: true, text: label, color },
    afterBuildTicks: (scale) => { scale.ticks = axis.ticks.map((tick) => ({ value: tick.value })); },
    ticks: { color, autoSkip: false, callback: (value, index) => (axis.ticks[index] || {}).text },
    grid: { color: "rgba(128,128,128,0.2)" },
  };
}

function chartDatasets(spec, color) {
  return spec.datasets.map((set) => {
    const front = set.line;
    return {
      label: set.label,
      data: set.points.map((point) => ({ x: point.x, y: point.y })),
      texts: set.points.map((point) => point.text),
      pointStyle: set.shape,
      pointRadius: front ? 9 : 5,
      pointHoverRadius: front ? 10 : 7,
      showLine: front,
      borderWidth: front ? 2 : 1,
      borderColor: front ? color : KIND_COLORS[set.key],
      backgroundColor: front ? "rgba(0,0,0,0)" : KIND_COLORS[set.key],
      order: front ? 0 : 1,
    };
  });
}

async function drawChart(spec) {
  const box = root.querySelector(".nfg-adv__chart");
  const config = JSON.parse(root.querySelector(".nfg-calc__config").textContent);
  const Chart = await loadChartJs(new URL(config.chartUrl, document.baseURI).href);
  const canvas = box.querySelector("canvas");
  const color = getComputedStyle(box).color || "#333";
  canvas.setAttribute("aria-label", spec.title);
  const scales = { x: logScale(spec.x_axis, spec.x_label, color),
                   y: logScale(spec.y_axis, spec.y_label, color) };
  if (chart && chart.canvas === canvas) { // new figures into the chart already drawn
    chart.data.datasets = chartDatasets(spec, color);
    chart.options.scales = scales;
    chart.options.plugins.title.text = spec.title;
    chart.options.plugins.title.color = color; // the theme may have changed since
    chart.options.plugins.legend.labels.color = color;
    chart.update("none");
    root.dataset.chartDrawn = String(spec.datasets.reduce((n, set) => n + set.points.length, 0));
    return;
  }
  if (chart) chart.destroy();
  chart = new Chart(canvas, {
    type: "scatter",
    data: { datasets: chartDatasets(spec, color) },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      scales,
      plugins: {
        legend: { labels: { color, usePointStyle: true } },
        title: { display: true, text: spec.title, color },
        tooltip: { callbacks: { label: (ctx) => ctx.dataset.texts[ctx.dataIndex] } },
      },
    },
  });
  root.dataset.chartDrawn = String(spec.datasets.reduce((n, set) => n + set.points.length, 0));
}

function drawPending() {
  const state = root.dataset.state;
  if (!pendingChart || !chartVisible || (state !== "ready" && state !== "failed")) return;
  const spec = pendingChart;
  pendingChart = null;
  drawChart(spec).catch(() => { root.querySelector(".nfg-adv__chart").hidden = true; });
}

function renderChart(spec) {
  const box = root.querySelector(".nfg-adv__chart");
  box.hidden = !spec;
  if (!spec) return;
  box.style.height = `${spec.height_px}px`;
  pendingChart = spec;
  drawPending();
}

// ---- the whole section ---------------------------------------------------------------------

function render(advisor) {
  current = advisor;
  for (const part of root.querySelectorAll(".nfg-adv__summary, .nfg-adv__wrap, .nfg-adv__rejected")) {
    part.hidden = false;
  }
  root.querySelector(".nfg-adv__message").textContent = advisor.message;
  root.querySelector(".nfg-adv__count").textContent = advisor.count_text;
  root.querySelector(".nfg-adv__ranked").textContent = advisor.ranked_text;
  root.querySelector(".nfg-adv__hint").textContent = advisor.sort_hint;
  renderTable(advisor);
  const api = root.querySelector(".nfg-adv__api");
  api.hidden = !advisor.api;
  if (advisor.api) {
    api.replaceChildren(element("span", { class: "nfg-adv__api-text" }, advisor.api.text),
      ...advisor.api.sources.flatMap((src) => [" ", element("a", { href: src.href }, src.text)]));
  }
  const rejected = root.querySelector(".nfg-adv__rejected");
  rejected.querySelector("summary").textContent = advisor.rejected_heading;
  rejected.querySelector("ul").replaceChildren(
    ...advisor.rejected.map((text) => element("li", {}, text)));
  renderChart(advisor.chart);
}

// No options of another setup: the table, chart, count and lists are emptied and hidden.
function empty() {
  current = null;
  pendingChart = null;
  if (chart) {
    chart.destroy();
    chart = null;
  }
  delete root.dataset.chartDrawn;
  const box = root.querySelector(".nfg-adv__chart");
  box.hidden = true;
  const table = root.querySelector(".nfg-adv__table");
  table.tBodies[0].replaceChildren();
  for (const selector of [".nfg-adv__message", ".nfg-adv__count", ".nfg-adv__ranked"]) {
    root.querySelector(selector).textContent = "";
  }
  const api = root.querySelector(".nfg-adv__api");
  api.hidden = true;
  api.replaceChildren();
  root.querySelector(".nfg-adv__rejected ul").replaceChildren();
  for (const part of root.querySelectorAll(".nfg-adv__summary, .nfg-adv__wrap, .nfg-adv__rejected")) {
    part.hidden = true;
  }
}

function show(display, prerendered) {
  shown = display;
  const advisor = display === PRERENDERED ? prerendered.advisor : display && display.advisor;
  if (advisor) render(advisor);
  else empty();
}

// The widget's last good result, PRERENDERED for the build's own.
function lastGood(widget) {
  const good = widget.lastGood;
  return good && good === widget.config.prerendered ? PRERENDERED : good || null;
}

// The widget removed its numbers before this script ran (a shared link cleared at once, then
// refused): its outputs are empty (every output has a text, "—" included, once a result is shown)
function outputsRemoved() {
  const outputs = [...root.querySelectorAll(".nfg-calc__outputs:not([hidden]) dd[data-field]")];
  return root.dataset.results === "cleared"
    || (outputs.length > 0 && outputs.every((dd) => !dd.textContent.trim()));
}

// Shows the options of the result the widget's numbers show, or none (see the header).
function sync(prerendered, clearedNow) {
  const widget = root.nfgWidget;
  if (!widget) {
    if (clearedNow) {
      removed = PRERENDERED;
      if (shown !== null) show(null, prerendered);
    }
    return;
  }
  const good = lastGood(widget);
  if (clearedNow || root.dataset.results === "cleared") removed = good;
  const wanted = !good || good === removed ? null : good;
  if (wanted !== shown) show(wanted, prerendered);
}

function mount() {
  if (!root || root.dataset.advisorMounted) return;
  root.dataset.advisorMounted = "true";
  const config = JSON.parse(root.querySelector(".nfg-calc__config").textContent);
  current = config.prerendered.advisor;
  if (!current) return;
  root.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-sort]");
    if (!button) return;
    const key = button.dataset.sort;
    sortDescending = sortKey === key ? !sortDescending : false;
    sortKey = key;
    applySort();
  });
  // new results: calc-widget.js bumps data-computed after moving the outputs in; data-results
  // says whether they answer the inputs (struck through by calc.css) or were removed (cleared)
  new MutationObserver((records) => {
    // every value data-results took since the last call: a record's oldValue is the value before
    // it, so the values after each change are the next records' old values and the current one
    const results = records.filter((r) => r.attributeName === "data-results");
    const after = results.slice(1).map((r) => r.oldValue);
    if (results.length) after.push(root.dataset.results);
    sync(config.prerendered, after.includes("cleared"));
    if (records.some((r) => r.attributeName === "data-computed")) {
      root.dataset.advisorComputed = root.dataset.computed;
    }
    drawPending(); // data-state became ready / failed
  }).observe(root, { attributes: true, attributeOldValue: true,
                     attributeFilter: ["data-computed", "data-state", "data-results"] });
  const box = root.querySelector(".nfg-adv__chart");
  pendingChart = current.chart;
  // the widget mounted first and already removed its numbers (a shared link)
  if (root.nfgWidget && outputsRemoved()) removed = lastGood(root.nfgWidget);
  sync(config.prerendered, false);
  if ("IntersectionObserver" in window) {
    new IntersectionObserver((entries) => {
      chartVisible = entries.some((entry) => entry.isIntersecting);
      drawPending();
    }, { rootMargin: "200px" }).observe(box);
  } else {
    chartVisible = true;
    drawPending();
  }
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mount);
else mount();
