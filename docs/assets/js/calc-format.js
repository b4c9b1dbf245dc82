// Result formatting in the page locale (mirrors site_macros/calculators.py format_value).

const GIB = 2 ** 30;

// useGrouping "always": Babel (the prerender) groups 4-digit numbers in every locale ("1.117,1"
// in es), while Intl's default follows CLDR's minimum grouping digits ("1117,1").
function num(value, locale, maxDecimals, minDecimals = 0) {
  return new Intl.NumberFormat(locale, {
    useGrouping: "always",
    maximumFractionDigits: maxDecimals,
    minimumFractionDigits: minDecimals,
  }).format(value);
}

export function formatValue(value, unit, locale, strings) {
  const result = (strings && strings.result) || {};
  if (value === null || value === undefined) return result.none || "—";
  if (unit === "bool") return value ? result.fits_yes : result.fits_no;
  if (unit === "text") return String(value);
  if (typeof value !== "number" || !Number.isFinite(value)) return String(value);
  switch (unit) {
    case "bytes":
      return `${num(value / GIB, locale, 2)} GiB`;
    case "seconds":
      if (Math.abs(value) < 1) return `${num(value * 1000, locale, 1)} ms`;
      if (Math.abs(value) >= 86400) return `${num(value / 86400, locale, 1)} d`;
      return `${num(value, locale, 2)} s`;
    case "usd": {
      const digits = Math.abs(value) >= 1 || value === 0 ? 2 : 4;
      return new Intl.NumberFormat(locale, {
        style: "currency",
        currency: "USD",
        currencyDisplay: "symbol",
        useGrouping: "always",
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
      }).format(value);
    }
    case "per_s":
      return `${num(value, locale, 1)} /s`;
    case "flops":
      return `${num(value / 1e15, locale, 2)} PFLOP`;
    case "ratio":
      return new Intl.NumberFormat(locale, {
        style: "percent",
        minimumFractionDigits: 1,
        maximumFractionDigits: 1,
      }).format(value);
    default:
      return num(value, locale, Number.isInteger(value) ? 0 : 2);
  }
}

// An error template ("{field} must be ...") filled with params; {field} is the localized label,
// numbers are written in the page locale.
export function formatError(template, params, fieldLabel, locale) {
  const values = { ...(params || {}), field: fieldLabel };
  const numberFormat = new Intl.NumberFormat(locale, { maximumFractionDigits: 6 });
  const show = (value) => (typeof value === "number" ? numberFormat.format(value) : String(value));
  return String(template).replace(/\{(\w+)\}/g, (match, key) => {
    if (!(key in values)) return match;
    const value = values[key];
    return Array.isArray(value) ? value.map(show).join(", ") : show(value);
  });
}

// Derivation steps ("show the math"): raw calc units -> readable units (mirrors
// site_macros/calculators.py format_step). [threshold, divisor, label] from the largest down.
const STEP_SCALES = {
  B: [[2 ** 30, 2 ** 30, "GiB"], [2 ** 20, 2 ** 20, "MiB"], [2 ** 10, 2 ** 10, "KiB"]],
  FLOP: [[1e18, 1e18, "EFLOP"], [1e15, 1e15, "PFLOP"], [1e12, 1e12, "TFLOP"], [1e9, 1e9, "GFLOP"]],
  "FLOP/s": [[1e15, 1e15, "PFLOP/s"], [1e12, 1e12, "TFLOP/s"], [1e9, 1e9, "GFLOP/s"]],
  "B/s": [[1e12, 1e12, "TB/s"], [1e9, 1e9, "GB/s"], [1e6, 1e6, "MB/s"]],
};

export function formatStep(value, unit, locale, strings) {
  if (value === null || value === undefined || typeof value === "boolean") {
    return formatValue(value, "bool", locale, strings);
  }
  if (typeof value !== "number" || !Number.isFinite(value)) return `${value} ${unit}`.trim();
  if (unit in STEP_SCALES) {
    for (const [threshold, divisor, label] of STEP_SCALES[unit]) {
      if (Math.abs(value) >= threshold) return `${num(value / divisor, locale, 2)} ${label}`;
    }
    return `${num(value, locale, 2)} ${unit}`;
  }
  if (unit === "s") {
    if (value !== 0 && Math.abs(value) < 1e-3) return `${num(value * 1e6, locale, 1)} µs`;
    return formatValue(value, "seconds", locale, strings);
  }
  if (unit === "USD") return formatValue(value, "usd", locale, strings);
  if (unit === "USD/h") return `${formatValue(value, "usd", locale, strings)}/h`;
  const units = (strings && strings.unit) || {};
  const label = units[unit] || unit;
  const digits = Number.isInteger(value) ? 0 : Math.abs(value) >= 10 ? 1 : 3;
  return `${num(value, locale, digits)} ${label}`.trim();
}
