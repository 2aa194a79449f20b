import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';

/** An S3 key pair: the platform's admin key, or an RGW user's own. */
export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/**
 * A query parameter: `[name, value]`, or `[name, null]` for a bare sub-resource such as the
 * `quota` of `?quota&uid=...`, which SigV4 canonicalizes as `quota=` (as RGW does).
 */
export type QueryParameter = readonly [name: string, value: string | null];

export interface SignableRequest {
  method: string;
  /** The full URL without its query: origin and path. */
  url: URL;
  query: readonly QueryParameter[];
}

/**
 * RFC 3986 encoding as SigV4 wants it: everything but unreserved characters. Used for the query
 * sent on the wire so that what RGW decodes is exactly what was signed.
 */
export const encodeRfc3986 = (text: string) =>
  encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

/** The query string as sent: bare sub-resources stay bare (`quota`), as RGW documents them. */
export function wireQuery(query: readonly QueryParameter[]): string {
  return query
    .map(([name, value]) =>
      value === null ? encodeRfc3986(name) : `${encodeRfc3986(name)}=${encodeRfc3986(value)}`,
    )
    .join('&');
}

/**
 * AWS Signature V4 for RGW (service `s3`), through the maintained Smithy signer: the canonical
 * request is never built by hand here. Paths are not double-encoded (S3's rule), and the payload
 * hash goes out as `x-amz-content-sha256`, which RGW requires. Requests carry no body: every
 * Admin Ops parameter is in the query, and a bucket create needs none.
 */
export async function signRequest(
  credentials: S3Credentials,
  region: string,
  request: SignableRequest,
  signingDate?: Date,
): Promise<Record<string, string>> {
  const signer = new SignatureV4({
    credentials,
    region,
    service: 's3',
    sha256: Hash.bind(null, 'sha256'),
    uriEscapePath: false,
    applyChecksum: true,
  });
  const signed = await signer.sign(
    new HttpRequest({
      method: request.method,
      protocol: request.url.protocol,
      hostname: request.url.hostname,
      port: request.url.port ? Number(request.url.port) : undefined,
      path: request.url.pathname,
      query: Object.fromEntries(request.query.map(([name, value]) => [name, value ?? ''])),
      headers: { host: request.url.host },
    }),
    // RGW compares the signing time with its own clock (15 minutes of skew at most), so this is
    // the wall clock, never the application's (tests move that one).
    { signingDate: signingDate ?? new Date() },
  );
  return signed.headers;
}
