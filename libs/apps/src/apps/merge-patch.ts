const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The JSON merge patch (RFC 7386) that turns `from` into `to`: keys `to` lacks become null,
 * objects recurse, anything else is replaced when it differs. Patching rather than replacing
 * the object leaves alone what others change meanwhile (Flux's status, a pinned digest), and
 * needs no resourceVersion.
 */
export function mergePatchFrom(from: unknown, to: unknown): unknown {
  if (!isObject(from) || !isObject(to)) return to;
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(from)) if (!(key in to)) patch[key] = null;
  for (const [key, value] of Object.entries(to)) {
    if (isObject(from[key]) && isObject(value)) {
      const inner = mergePatchFrom(from[key], value) as Record<string, unknown>;
      if (Object.keys(inner).length > 0) patch[key] = inner;
    } else if (JSON.stringify(from[key]) !== JSON.stringify(value)) {
      patch[key] = value;
    }
  }
  return patch;
}
