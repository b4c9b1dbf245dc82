// Result formatting in the page locale (mirrors site_macros/calculators.py format_value).

const GIB = 2 ** 30;

function num(value, locale, maxDecimals, minDecimals = 0) {
  return new Intl.NumberFormat(locale, {
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
