// Charts for the calculators, drawn with Chart.js (served from the site, loaded on demand).

const GIB = 2 ** 30;
const charts = new WeakMap();
let chartLibrary = null;

function loadChartJs(url) {
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

// Colours readable on Material's light (default) and dark (slate) schemes.
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

function gib(bytes) {
  return typeof bytes === "number" ? bytes / GIB : null;
}

function memoryBreakdown(result, strings) {
  const r = result.responses.main.result;
  const s = strings.result;
  const freeCore = Math.max(0, r.capacity_per_core_bytes - r.per_core_bytes);
  const freeInstance = Math.max(0, (r.capacity_per_instance_bytes ?? 0) - r.total_bytes);
  const series = [
    [s.chart_weights, PALETTE.weights, r.weights_per_core_bytes, r.weights_bytes],
    [s.chart_kv_cache, PALETTE.kv, r.kv_cache_per_core_bytes, r.kv_cache_bytes],
    [s.chart_activations, PALETTE.activations, r.activation_per_core_bytes, r.activation_bytes],
    [s.chart_overhead, PALETTE.overhead, r.overhead_per_core_bytes, r.overhead_bytes],
    [s.chart_free, PALETTE.free, freeCore, freeInstance],
  ];
  return {
    type: "bar",
    labels: [s.chart_per_core, s.chart_per_instance],
    datasets: series.map(([label, color, core, instance]) => ({
      label,
      backgroundColor: color,
      data: [gib(core), gib(instance)],
      stack: "memory",
    })),
    unit: "GiB",
    indexAxis: "y",
    stacked: true,
  };
}

function trainingBreakdown(result, strings) {
  const r = result.responses.main.result;
  const s = strings.result;
  const series = [
    [s.chart_weights, PALETTE.weights, r.weights_bytes],
    [s.chart_grads, PALETTE.grads, r.grads_bytes],
    [s.chart_master, PALETTE.master, r.master_bytes],
    [s.chart_optimizer, PALETTE.optimizer, r.optimizer_bytes],
    [s.chart_activations, PALETTE.activations, r.activation_bytes],
    [s.chart_overhead, PALETTE.overhead, r.overhead_bytes],
    [s.chart_free, PALETTE.free, Math.max(0, r.capacity_per_device_bytes - r.per_device_bytes)],
  ];
  return {
    type: "bar",
    labels: [s.chart_per_device],
    datasets: series.map(([label, color, bytes]) => ({
      label, backgroundColor: color, data: [gib(bytes)], stack: "memory",
    })),
    unit: "GiB",
    indexAxis: "y",
    stacked: true,
  };
}

function priceCompare(result, strings, config) {
  const response = result.responses.compare;
  if (!response || !response.ok) return null;
  const rows = (response.result.rows || response.result.instances || [])
    .filter((row) => typeof row.usd_per_hour === "number");
  return {
    type: "bar",
    labels: rows.map((row) => row.instance),
    datasets: [{
      label: strings.result.chart_usd_per_hour,
      data: rows.map((row) => row.usd_per_hour),
      backgroundColor: rows.map((row) => (config.instanceKinds[row.instance] === "gpu" ? PALETTE.gpu : PALETTE.neuron)),
    }],
    unit: "USD/h",
    indexAxis: "y",
    stacked: false,
  };
}

const BUILDERS = {
  "memory-breakdown": memoryBreakdown,
  "training-breakdown": trainingBreakdown,
  "price-compare": priceCompare,
};

export async function drawChart(box, kind, result, config) {
  const spec = BUILDERS[kind] && BUILDERS[kind](result, config.strings, config);
  if (!spec) {
    box.hidden = true;
    return;
  }
  const Chart = await loadChartJs(new URL(config.chartUrl, document.baseURI).href);
  box.hidden = false;
  const canvas = box.querySelector("canvas");
  box.style.height = `${Math.max(180, spec.labels.length * 28 + 90)}px`;
  const color = textColor(box);
  const numberFormat = new Intl.NumberFormat(config.lang, { maximumFractionDigits: 2 });
  const existing = charts.get(canvas);
  if (existing && existing.nfgKind !== kind) {
    existing.destroy();
    charts.delete(canvas);
  } else if (existing) {
    existing.data.labels = spec.labels;
    existing.data.datasets = spec.datasets;
    existing.update("none");
    return;
  }
  const chart = new Chart(canvas, {
    type: spec.type,
    data: { labels: spec.labels, datasets: spec.datasets },
    options: {
      indexAxis: spec.indexAxis,
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      scales: {
        x: {
          stacked: spec.stacked,
          ticks: { color, callback: (value) => `${numberFormat.format(value)} ${spec.unit}` },
          grid: { color: "rgba(128,128,128,0.2)" },
        },
        y: { stacked: spec.stacked, ticks: { color }, grid: { display: false } },
      },
      plugins: {
        legend: { display: spec.datasets.length > 1, labels: { color } },
        tooltip: {
          callbacks: {
            label: (ctx) => `${ctx.dataset.label}: ${numberFormat.format(ctx.parsed.x)} ${spec.unit}`,
          },
        },
      },
    },
  });
  chart.nfgKind = kind;
  charts.set(canvas, chart);
}
