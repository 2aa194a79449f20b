/**
 * Secrets kept out of log lines. Every line passes through `redactSecrets` (JsonLogger applies
 * it to whatever is logged), which replaces the secret part of a value with `[redacted]` and
 * leaves the rest readable: `/invite/[redacted]`, `Bearer [redacted]`, `hq_pat_[redacted]`.
 *
 * It runs on every log line, the access log of every request included, so it stays cheap: one
 * precompiled regular expression per string, objects walked without copying unless something
 * in them changes.
 */
export const REDACTED = '[redacted]';

/** Base64url and the characters a token value ends before in text, URLs and headers. */
const VALUE = String.raw`[^\s"'<>&#;,\\]`;

/**
 * One alternation, so a string is scanned once; each alternative but the JWT-like one captures
 * the readable part to keep in its first group.
 */
const SECRET_SHAPES = new RegExp(
  [
    // Paths whose segment is the credential (invitation, signed e-mail and phone
    // acknowledgements); a route template (`:token`) is no secret.
    String.raw`(/(?:invite|alerts/ack|alerts/phone_ack)/)(?![:{])[^/?#\s"'<>\\]+`,
    // Query parameters holding a secret: ?token=, ?access_token=, ?signed_id=, ...
    String.raw`([?&](?:[\w.-]*?(?:[Tt]oken|[Ss]ecret|[Pp]assword|[Pp]asswd|[Ss]ignature|[Aa]pi[-_]?[Kk]ey)|signed_id)=)${VALUE}+`,
    // An Authorization header's credentials.
    String.raw`(\b(?:[Bb]earer|BEARER|[Bb]asic|BASIC)\s+)${VALUE}+`,
    // Prefixed static tokens and Standard Webhooks signing secrets.
    String.raw`((?<![\w-])(?:hq_[a-z]{2,5}_|whsec_))[\w+/=-]{8,}`,
    // A labelled value in text, as e-mails and messages write them: "Reset token: ...".
    String.raw`(\b(?:[Tt]oken|TOKEN|[Ss]ecret|SECRET|[Pp]assword|PASSWORD)\s*[:=]\s*)(?!\[redacted\])${VALUE}+`,
    // The password of a URL's user information (one already masked as *** stays).
    String.raw`(\b[a-z][a-z\d+.-]*://[^\s:@/?#"'<>]*:)(?!\*+@)[^\s@/?#"'<>]+(?=@)`,
    // JWTs and the platform's signed links: base64url JSON, then one or two base64url parts.
    String.raw`(?<![\w-])eyJ[\w-]{8,}\.[\w-]{2,}(?:\.[\w-]*)?`,
  ].join('|'),
  'g',
);

/** Field names whose values are secrets whatever they look like. */
const SECRET_FIELD =
  /password|passwd|secret|(?:token|authorization|cookie|api[-_]?key|private[-_]?key|signature|credentials?|signed[-_]?id)$/i;

/** Deeper than this, pino prints nothing anyway (its depthLimit is 5). */
const MAX_DEPTH = 10;

function keepPrefix(_match: string, ...groups: unknown[]): string {
  for (let index = 0; index < 6; index += 1) {
    const group = groups[index];
    if (typeof group === 'string') return `${group}${REDACTED}`;
  }
  return REDACTED;
}

/** The text with every secret it carries replaced by `[redacted]`. */
export function redactSecretText(text: string): string {
  // Shorter than the shortest shape ("Basic x"): nothing to find.
  if (text.length < 7) return text;
  return text.replace(SECRET_SHAPES, keepPrefix);
}

/** Whether a field of that name holds a secret, so its value is never logged. */
export function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name);
}

/**
 * The value as it may be logged: strings redacted by shape, fields with secret names replaced
 * whole (booleans and null stay: `secret_key_is_default: true` tells nothing), errors copied
 * with their message and stack redacted. The value itself is never changed; an unchanged value
 * comes back as is.
 */
export function redactSecrets<T>(value: T): T {
  return redactValue(value, []) as T;
}

function redactValue(value: unknown, ancestors: object[]): unknown {
  if (typeof value === 'string') return redactSecretText(value);
  if (typeof value !== 'object' || value === null) return value;
  // A cycle is printed as "[Circular]" by pino; a copy must not lead back to the original.
  if (ancestors.includes(value)) return '[Circular]';
  if (ancestors.length >= MAX_DEPTH) return '[...]';
  if (value instanceof Error) return redactError(value, ancestors);
  if (Array.isArray(value)) return redactArray(value, ancestors);
  if (
    value instanceof Date ||
    ArrayBuffer.isView(value) ||
    value instanceof Map ||
    value instanceof Set
  ) {
    return value;
  }
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    return redactValue((toJSON as () => unknown).call(value), ancestors);
  }
  return redactObject(value as Record<string, unknown>, ancestors);
}

function redactField(key: string, value: unknown, ancestors: object[]): unknown {
  if (value === null || value === undefined || typeof value === 'boolean') return value;
  if (isSecretField(key)) return REDACTED;
  return redactValue(value, ancestors);
}

function redactArray(array: unknown[], ancestors: object[]): unknown[] {
  ancestors.push(array);
  let copy: unknown[] | undefined;
  for (let index = 0; index < array.length; index += 1) {
    const redacted = redactValue(array[index], ancestors);
    if (redacted !== array[index]) {
      copy ??= array.slice();
      copy[index] = redacted;
    }
  }
  ancestors.pop();
  return copy ?? array;
}

function redactObject(object: Record<string, unknown>, ancestors: object[]): object {
  ancestors.push(object);
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(object)) {
    const redacted = redactField(key, object[key], ancestors);
    if (redacted !== object[key]) {
      copy ??= { ...object };
      copy[key] = redacted;
    }
  }
  ancestors.pop();
  return copy ?? object;
}

/**
 * A copy of the error with the same prototype (pino's serializer still sees an Error of that
 * type) and every own property redacted: the message and stack too, which are not enumerable.
 */
function redactError(error: Error, ancestors: object[]): Error {
  ancestors.push(error);
  const keys = Reflect.ownKeys(error);
  const values = keys.map((key) => (error as unknown as Record<PropertyKey, unknown>)[key]);
  const redacted = keys.map((key, index) =>
    typeof key === 'string' ? redactField(key, values[index], ancestors) : values[index],
  );
  ancestors.pop();
  if (redacted.every((value, index) => value === values[index])) return error;
  const copy = Object.create(Object.getPrototypeOf(error) as object) as Error;
  keys.forEach((key, index) => {
    Object.defineProperty(copy, key, {
      value: redacted[index],
      enumerable: Object.prototype.propertyIsEnumerable.call(error, key),
      writable: true,
      configurable: true,
    });
  });
  return copy;
}
