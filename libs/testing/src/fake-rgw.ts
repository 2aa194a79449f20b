import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { adminError, type RgwReply, RgwStore, s3Error } from './fake-rgw/rgw-store.js';
import { queryParameters, verifySigV4 } from './fake-rgw/sigv4-verifier.js';

export * from './fake-rgw/rgw-store.js';
export * from './fake-rgw/sigv4-verifier.js';

/** Which of the fake's two listeners a request reached. */
export type RgwEndpoint = 'admin' | 's3';

/** One request the fake received, with what it made of it. */
export interface RgwReceived {
  endpoint: RgwEndpoint;
  method: string;
  path: string;
  /** Decoded parameters; a bare sub-resource (`quota`) has the value ''. */
  query: Record<string, string>;
  /** The access key, region and service of the signature (null when unsigned or malformed). */
  accessKey: string | null;
  region: string | null;
  service: string | null;
  status: number;
  /** The error code answered, if any (`SignatureDoesNotMatch`, `NoSuchUser`, ...). */
  code: string | null;
}

/** A failure answered instead of the next matching requests. */
export interface RgwFailure {
  endpoint?: RgwEndpoint;
  method?: string;
  path?: RegExp;
  /** A query parameter the request must carry (e.g. `quota`, `key`). */
  has?: string;
  /** Answer this status (default 500) with an RGW error of `code`; with `hang`, never answer. */
  status?: number;
  code?: string;
  hang?: boolean;
  /** How many requests it applies to (default 1). */
  times?: number;
}

export interface FakeRgwOptions {
  accessKey?: string;
  secretKey?: string;
}

/**
 * A fake Ceph RGW on two free local ports, each a gateway of the same cluster: the one the
 * platform is configured with as `RGW_ADMIN_URL`, the other as `RGW_S3_URL`, so tests see which
 * calls go where. It speaks the Admin Ops API (`/admin/user`, `/admin/bucket`: tenanted uids,
 * users with keys, quota and suspension, stats, keys, buckets with purge) in RGW's JSON, and
 * S3's bucket `PUT /<bucket>`. Every request must carry a valid AWS Signature V4 by a key it
 * knows (the admin key for Admin Ops, any key for S3), verified independently of the platform's
 * signer: a wrong secret is a 403 `SignatureDoesNotMatch`, as RGW answers. It records what it
 * receives and fails (or hangs) on demand.
 */
export class FakeRgw {
  readonly store: RgwStore;
  readonly received: RgwReceived[] = [];
  /** The fake's clock for signature dates (the wall clock unless a test moves it). */
  now: () => number = () => Date.now();
  private failures: RgwFailure[] = [];
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly servers: Record<RgwEndpoint, Server>,
    readonly accessKey: string,
    readonly secretKey: string,
  ) {
    this.store = new RgwStore({ accessKey, secretKey }, () => new Date(this.now()));
  }

  static async start(options: FakeRgwOptions = {}): Promise<FakeRgw> {
    const servers = { admin: createServer(), s3: createServer() };
    const fake = new FakeRgw(
      servers,
      options.accessKey ?? 'PLATFORMADMINKEY0001',
      options.secretKey ?? 'platform admin secret key of the fake rgw',
    );
    for (const endpoint of ['admin', 's3'] as const) {
      servers[endpoint].on('request', (req, res) => void fake.serve(endpoint, req, res));
      await new Promise<void>((resolve) => servers[endpoint].listen(0, '127.0.0.1', resolve));
    }
    return fake;
  }

  url(endpoint: RgwEndpoint): string {
    return `http://127.0.0.1:${(this.servers[endpoint].address() as AddressInfo).port}`;
  }

  /** The `rgw` section of the platform's configuration for this fake. */
  config(overrides: { secretKey?: string; region?: string } = {}) {
    return {
      adminUrl: this.url('admin'),
      accessKey: this.accessKey,
      secretKey: overrides.secretKey ?? this.secretKey,
      region: overrides.region ?? 'us-east-1',
      s3Url: this.url('s3'),
    };
  }

  fail(failure: RgwFailure): void {
    this.failures.push({ times: 1, ...failure });
  }

  /** Requests received, optionally of one endpoint and method. */
  requests(endpoint?: RgwEndpoint, method?: string): RgwReceived[] {
    return this.received.filter(
      (r) => (!endpoint || r.endpoint === endpoint) && (!method || r.method === method),
    );
  }

  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    for (const server of Object.values(this.servers)) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  private async serve(endpoint: RgwEndpoint, req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const [path, rawQuery = ''] = (req.url ?? '/').split(/\?(.*)/s, 2);
    const params = new Map(queryParameters(rawQuery));
    const method = req.method ?? 'GET';
    const record: RgwReceived = {
      endpoint,
      method,
      path,
      query: Object.fromEntries(params),
      accessKey: null,
      region: null,
      service: null,
      status: 0,
      code: null,
    };
    this.received.push(record);
    const isAdmin = /^\/admin\/(user|bucket)$/.exec(path);
    const failure = this.injected(endpoint, method, path, params);
    if (failure === 'hang') {
      this.hanging.add(res);
      return;
    }
    const verified = verifySigV4(
      { method, path, rawQuery, headers: req.headers, body: Buffer.concat(chunks) },
      (key) => this.store.secretOf(key),
      this.now(),
    );
    if (verified.ok) {
      Object.assign(record, {
        accessKey: verified.accessKey,
        region: verified.region,
        service: verified.service,
      });
    } else record.accessKey = verified.accessKey ?? null;
    const reply =
      failure ??
      (!verified.ok
        ? (isAdmin ? adminError : s3Error)(verified.status, verified.code, verified.message)
        : this.answer(method, path, isAdmin?.[1], params, verified.accessKey));
    record.status = reply.status;
    record.code = errorCodeOf(reply);
    this.reply(res, reply);
  }

  private answer(
    method: string,
    path: string,
    resource: string | undefined,
    params: Map<string, string>,
    accessKey: string,
  ): RgwReply {
    const caller = this.store.callerOf(accessKey);
    if (resource) {
      // Admin Ops need the admin's caps; a user's own key is refused.
      if (caller.uid) return adminError(403, 'AccessDenied');
      return this.store.adminOp(method, resource, params);
    }
    const bucket = /^\/([^/]+)\/?$/.exec(path)?.[1];
    if (method === 'PUT' && bucket) return this.store.createBucket(caller, bucket);
    return s3Error(405, 'MethodNotAllowed');
  }

  private injected(
    endpoint: RgwEndpoint,
    method: string,
    path: string,
    params: Map<string, string>,
  ): RgwReply | 'hang' | undefined {
    const failure = this.failures.find(
      (f) =>
        (!f.endpoint || f.endpoint === endpoint) &&
        (!f.method || f.method === method) &&
        (!f.path || f.path.test(path)) &&
        (!f.has || params.has(f.has)),
    );
    if (!failure) return undefined;
    failure.times = (failure.times ?? 1) - 1;
    if (failure.times <= 0) this.failures = this.failures.filter((f) => f !== failure);
    if (failure.hang) return 'hang';
    const status = failure.status ?? 500;
    const code = failure.code ?? (status >= 500 ? 'InternalError' : 'InvalidArgument');
    return endpoint === 'admin' && path.startsWith('/admin/')
      ? adminError(status, code)
      : s3Error(status, code);
  }

  private reply(res: ServerResponse, reply: RgwReply): void {
    const payload =
      reply.body === undefined
        ? ''
        : typeof reply.body === 'string'
          ? reply.body
          : int64Json(reply.body);
    res.writeHead(reply.status, {
      ...(payload && typeof reply.body !== 'string' ? { 'content-type': 'application/json' } : {}),
      ...reply.headers,
    });
    res.end(payload);
  }
}

/** JSON with RGW's 64-bit integers written out exactly, as RGW's formatter does. */
function int64Json(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'bigint' ? `__int64:${v}` : v,
  ).replace(/"__int64:(-?\d+)"/g, '$1');
}

function errorCodeOf(reply: RgwReply): string | null {
  if (reply.status < 300) return null;
  if (typeof reply.body === 'string') return /<Code>([^<]*)<\/Code>/.exec(reply.body)?.[1] ?? null;
  const code = (reply.body as { Code?: unknown } | undefined)?.Code;
  return typeof code === 'string' ? code : null;
}
