/**
 * Whether `desired` asks for something `live` does not have. Only what `desired` sets is
 * compared, so fields the server filled in (defaults, uid, status) do not count; arrays compare
 * element by element at the same length; `null` in desired means "absent". Resource quantities
 * compare by value, since the API server rewrites them in canonical form ("1000m" -> "1").
 */
export function differsFrom(desired: unknown, live: unknown): boolean {
  if (desired === undefined) return false;
  if (desired === null) return live !== null && live !== undefined;
  if (Array.isArray(desired)) {
    if (!Array.isArray(live) || live.length !== desired.length) return true;
    return desired.some((item, index) => differsFrom(item, live[index]));
  }
  if (typeof desired === 'object') {
    if (typeof live !== 'object' || live === null || Array.isArray(live)) return true;
    const record = live as Record<string, unknown>;
    return Object.entries(desired as Record<string, unknown>).some(([key, value]) =>
      differsFrom(value, record[key]),
    );
  }
  if (desired === live) return false;
  if (typeof desired === 'string' && typeof live === 'string') return !sameQuantity(desired, live);
  if (typeof desired === 'number' && typeof live === 'string')
    return !sameQuantity(String(desired), live);
  return true;
}

const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;

const SUFFIX_FACTORS: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

/** The value of a Kubernetes quantity ("1Gi", "500m", "1e3"), or undefined. */
export function quantityValue(text: string): number | undefined {
  const match = QUANTITY.exec(text.trim());
  if (!match) return undefined;
  const number = Number(match[1]);
  const suffix = match[2];
  if (suffix === undefined) return number;
  if (suffix === 'm') return number / 1000;
  if (suffix in SUFFIX_FACTORS) return number * SUFFIX_FACTORS[suffix];
  return number * 10 ** Number(suffix.slice(1));
}

function sameQuantity(a: string, b: string): boolean {
  const left = quantityValue(a);
  const right = quantityValue(b);
  return left !== undefined && right !== undefined && left === right;
}
