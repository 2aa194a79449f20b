import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** A request as it arrived on the wire. */
export interface ReceivedRequest {
  method: string;
  /** The path as sent, without the query. */
  path: string;
  /** The query string as sent, without `?`. */
  rawQuery: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type Verification =
  | { ok: true; accessKey: string; region: string; service: string }
  | { ok: false; status: number; code: string; message: string; accessKey?: string };

/** How far a request's `x-amz-date` may be from the server's clock (RGW's and S3's rule). */
export const MAX_CLOCK_SKEW_MS = 15 * 60_000;
const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');

const encode = (text: string) =>
  encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

const decode = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/** The query's parameters, decoded, as RGW reads them: `quota` alone is `quota` = ''. */
export function queryParameters(rawQuery: string): Array<[string, string]> {
  return rawQuery
    .split('&')
    .filter(Boolean)
    .map((part) => {
      const at = part.indexOf('=');
      return at < 0 ? [decode(part), ''] : [decode(part.slice(0, at)), decode(part.slice(at + 1))];
    });
}

const refuse = (status: number, code: string, message: string, accessKey?: string) =>
  ({ ok: false, status, code, message, accessKey }) as const;

/**
 * Verifies an AWS Signature V4 `Authorization` header the way RGW does, written here from the
 * AWS documentation and independently of the signer the platform uses, so that a mistake in how
 * the platform calls its signer shows up: the canonical request is rebuilt from what arrived
 * (parameters decoded and re-encoded, sorted, a bare sub-resource as `name=`), signed with the
 * secret of the access key, and compared. Also checks the payload hash against the body and the
 * date against the clock.
 */
export function verifySigV4(
  request: ReceivedRequest,
  secretOf: (accessKey: string) => string | undefined,
  now: number,
): Verification {
  const header = request.headers.authorization;
  if (!header) return refuse(403, 'AccessDenied', 'anonymous requests are refused');
  const match = /^AWS4-HMAC-SHA256 (.+)$/.exec(header);
  if (!match) return refuse(400, 'InvalidArgument', 'unsupported authorization type');
  const fields = Object.fromEntries(
    match[1].split(',').map((field) => {
      const at = field.indexOf('=');
      return [field.slice(0, at).trim(), field.slice(at + 1).trim()];
    }),
  );
  const scope = String(fields.Credential ?? '').split('/');
  const signedHeaders = String(fields.SignedHeaders ?? '').split(';');
  if (scope.length !== 5 || scope[4] !== 'aws4_request' || !fields.Signature) {
    return refuse(400, 'AuthorizationHeaderMalformed', 'malformed credential scope');
  }
  const [accessKey, day, region, service] = scope;
  const secret = secretOf(accessKey);
  if (secret === undefined) return refuse(403, 'InvalidAccessKeyId', 'unknown access key');

  const amzDate = request.headers['x-amz-date'];
  if (typeof amzDate !== 'string' || !/^\d{8}T\d{6}Z$/.test(amzDate)) {
    return refuse(403, 'AccessDenied', 'missing or malformed x-amz-date', accessKey);
  }
  const signedAt = Date.parse(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
  );
  if (Math.abs(now - signedAt) > MAX_CLOCK_SKEW_MS) {
    return refuse(403, 'RequestTimeTooSkewed', 'the request time is too far from ours', accessKey);
  }
  const payloadHash = request.headers['x-amz-content-sha256'];
  if (typeof payloadHash !== 'string') {
    return refuse(400, 'InvalidRequest', 'missing x-amz-content-sha256', accessKey);
  }
  const bodyHash = request.body.length
    ? createHash('sha256').update(request.body).digest('hex')
    : EMPTY_SHA256;
  if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== bodyHash) {
    return refuse(400, 'XAmzContentSHA256Mismatch', 'the body does not match its hash', accessKey);
  }
  if (!signedHeaders.includes('host') || signedHeaders.some((h) => !(h in request.headers))) {
    return refuse(
      403,
      'SignatureDoesNotMatch',
      'host and every signed header must be signed',
      accessKey,
    );
  }

  const canonicalQuery = queryParameters(request.rawQuery)
    .map(([name, value]) => [encode(name), encode(value)])
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const canonicalPath =
    request.path
      .split('/')
      .map((s) => encode(decode(s)))
      .join('/') || '/';
  const canonicalHeaders = signedHeaders
    .map((name) => {
      const value = request.headers[name];
      const text = Array.isArray(value) ? value.join(',') : String(value);
      return `${name}:${text.trim().replace(/\s+/g, ' ')}\n`;
    })
    .join('');
  const canonicalRequest = [
    request.method,
    canonicalPath,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders.join(';'),
    payloadHash,
  ].join('\n');
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    amzDate,
    `${day}/${region}/${service}/aws4_request`,
    createHash('sha256').update(canonicalRequest).digest('hex'),
  ].join('\n');
  const hmac = (key: Buffer | string, data: string) =>
    createHmac('sha256', key).update(data).digest();
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');
  const expected = createHmac('sha256', signingKey).update(stringToSign).digest();
  const given = Buffer.from(String(fields.Signature), 'hex');
  if (
    day !== amzDate.slice(0, 8) ||
    given.length !== expected.length ||
    !timingSafeEqual(given, expected)
  ) {
    return refuse(
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided',
      accessKey,
    );
  }
  return { ok: true, accessKey, region, service };
}
