// Charts for the calculators, drawn with Chart.js (served from the site, loaded on demand).
//
// The chart spec comes from Python (calc.display.charts, inside calc.display.present): category
// labels, dataset labels, bar lengths, axis ticks and every tooltip text. Nothing is formatted
// here: ticks and tooltips show the strings Python made.

const charts = new WeakMap();
let chartLibrary = null;

// Loads Chart.js once per page (the advisor's chart shares it).
export function loadChartJs(url) {
  if (!chartLibrary) {
    chartLibrary = new Promise((resolve, reject) => {
      if (window.Chart) {
        resolve(window.Chart);
        return;
      }
      const script = document.createElement("script");
      script.src = url;
      script.async = true;
      script.onload = () => (window.Chart ? resolve(window.Chart) : reject(new Error("Chart.js")));
      script.onerror = () => reject(new Error("Chart.js could not load"));
      document.head.append(script);
    });
  }
  return chartLibrary;
}

// Colours readable on Material's light (default) and dark (slate) schemes, by the key Python gives.
const PALETTE = {
  weights: "#4e79a7",
  kv: "#f28e2b",
  activations: "#59a14f",
  overhead: "#b07aa1",
  grads: "#e15759",
  master: "#76b7b2",
  optimizer: "#edc948",
  free: "rgba(128, 128, 128, 0.25)",
  neuron: "#f28e2b",
  gpu: "#4e79a7",
};

function textColor(box) {
  return getComputedStyle(box).color || "#333";
}

function datasets(spec) {
  return spec.datasets.map((set) => ({
    label: set.label,
    data: set.data,
    texts: set.texts,
    stack: spec.stacked ? "stack" : undefined,
    backgroundColor: set.colors ? set.colors.map((key) => PALETTE[key]) : PALETTE[set.color],
  }));
}

export async function drawChart(box, spec, chartUrl) {
  const Chart = await loadChartJs(new URL(chartUrl, document.baseURI).href);
  box.hidden = false;
  const canvas = box.querySelector("canvas");
  box.style.height = `${spec.height_px}px`;
  const color = textColor(box);
  const ticks = spec.axis.ticks;
  const existing = charts.get(canvas);
  if (existing) {
    existing.destroy();
    charts.delete(canvas);
  }
  const chart = new Chart(canvas, {
    type: "bar",
    data: { labels: spec.categories, datasets: datasets(spec) },
    options: {
      indexAxis: "y",
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      scales: {
        x: {
          stacked: spec.stacked,
          min: 0,
          max: spec.axis.max,
          afterBuildTicks: (axis) => { axis.ticks = ticks.map((tick) => ({ value: tick.value })); },
          ticks: { color, autoSkip: false, callback: (value, index) => (ticks[index] || {}).text },
          grid: { color: "rgba(128,128,128,0.2)" },
        },
        y: { stacked: spec.stacked, ticks: { color }, grid: { display: false } },
      },
      plugins: {
        legend: { display: spec.datasets.length > 1, labels: { color } },
        tooltip: { callbacks: { label: (ctx) => ctx.dataset.texts[ctx.dataIndex] } },
      },
    },
  });
  charts.set(canvas, chart);
}
