import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CinderOptions, cinderService } from './cinder.js';
import { type DesignateOptions, designateService } from './designate.js';
import { type FakeReply, type FakeService, json, ProjectResources } from './fake-service.js';
import { FakeKeystone } from './keystone.js';
import { neutronService } from './neutron.js';
import { FAKE_IMAGES, glanceService, novaService } from './nova.js';
import { octaviaService } from './octavia.js';

export interface FakeOpenStackOptions {
  username?: string;
  password?: string;
  region?: string;
}

/** A failure the fake answers instead of the next matching requests. */
export interface InjectedFailure {
  /** Catalog type (`compute`, `network`, `identity`, ...); any when omitted. */
  service?: string;
  method?: string;
  /** Matched against the path below the service's endpoint. */
  path?: RegExp;
  /** Answer this status (default 500); with `hang`, never answer. */
  status?: number;
  body?: unknown;
  hang?: boolean;
  /** How many requests it applies to (default 1). */
  times?: number;
  /** Carry the request out, then answer the failure: an answer lost on the way back. */
  afterApplying?: boolean;
}

/** One request the fake received from the platform. */
export interface ReceivedCall {
  service: string;
  method: string;
  path: string;
  /** The Keystone project of its token (null for identity calls). */
  projectId: string | null;
  body: unknown;
}

/**
 * A fake OpenStack cloud on a free local port, speaking the real wire format: Keystone v3
 * (password auth with project or domain scope, a catalog per token, projects, roles and role
 * assignments) and the services behind it, each below its own catalog endpoint. Every service
 * call needs a live project-scoped token and sees only that project's resources. It records
 * what it receives and can fail (or hang) on demand.
 */
export class FakeOpenStack {
  readonly keystone: FakeKeystone;
  readonly resources = new ProjectResources();
  readonly calls: ReceivedCall[] = [];
  /** How long new servers stay in BUILD. */
  serverBuildMs = 50;
  /** Servers per page of Nova's `servers/detail`. */
  serverPageSize = 1000;
  /** Designate's timings and page size, changeable while it runs. */
  readonly designate: DesignateOptions = { activateMs: 50, pageSize: 20 };
  /** What Cinder's new snapshots and volumes become on their next read, and its clock. */
  readonly cinder: CinderOptions = { snapshots: 'available', volumes: 'available', now: Date.now };
  private readonly services = new Map<string, FakeService>();
  private failures: InjectedFailure[] = [];
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly region: string,
    credentials: { username: string; password: string },
  ) {
    this.keystone = new FakeKeystone({
      id: randomUUID().replace(/-/g, ''),
      name: credentials.username,
      password: credentials.password,
      domain: 'Default',
    });
    this.register(
      novaService(this.resources, {
        buildMs: () => this.serverBuildMs,
        imageExists: (id) => FAKE_IMAGES.some((image) => image.id === id),
        pageSize: () => this.serverPageSize,
        origin: () => this.origin,
      }),
    );
    this.register(glanceService());
    this.register(cinderService(this.resources, this.cinder));
    this.register(octaviaService(this.resources));
    this.register(designateService(this.resources, this.designate));
    this.register(neutronService(this.resources));
  }

  static async start(options: FakeOpenStackOptions = {}): Promise<FakeOpenStack> {
    const server = createServer();
    const fake = new FakeOpenStack(server, options.region ?? 'RegionOne', {
      username: options.username ?? 'platform-service',
      password: options.password ?? 'service password',
    });
    server.on('request', (req, res) => void fake.serve(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** `OPENSTACK_AUTH_URL` for the platform. */
  get authUrl(): string {
    return `${this.origin}/identity/v3`;
  }

  /** The `openstack` section of the platform's configuration for this fake. */
  config() {
    return {
      authUrl: this.authUrl,
      username: this.keystone.user.name,
      password: this.keystone.user.password,
      userDomain: 'Default',
      projectDomain: 'Default',
      region: this.region,
    };
  }

  /** Adds a service (its catalog entry and routes). */
  register(service: FakeService): void {
    this.services.set(service.type, service);
  }

  fail(failure: InjectedFailure): void {
    this.failures.push({ times: 1, ...failure });
  }

  /** The Keystone project of a platform project (`platform-<uuid>`), once provisioned. */
  projectIdFor(name: string): string | undefined {
    return [...this.keystone.projects.values()].find((p) => p.name === name)?.id;
  }

  /** Calls to a service, optionally of one method. */
  callsTo(service: string, method?: string): ReceivedCall[] {
    return this.calls.filter((c) => c.service === service && (!method || c.method === method));
  }

  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private catalog(projectId: string | null) {
    return [
      {
        type: 'identity',
        name: 'keystone',
        endpoints: [
          {
            id: 'identity',
            interface: 'public',
            region: this.region,
            region_id: this.region,
            url: `${this.origin}/identity/v3`,
          },
        ],
      },
      ...[...this.services.values()].map((service) => ({
        type: service.type,
        name: service.type,
        endpoints: [
          // Another region and the internal interface, which the platform must not pick.
          {
            id: `${service.type}-other`,
            interface: 'public',
            region: 'OtherRegion',
            region_id: 'OtherRegion',
            url: `${this.origin}/wrong-region${service.prefix}`,
          },
          {
            id: `${service.type}-internal`,
            interface: 'internal',
            region: this.region,
            region_id: this.region,
            url: `${this.origin}/internal${service.prefix}`,
          },
          {
            id: service.type,
            interface: 'public',
            region: this.region,
            region_id: this.region,
            url: `${this.origin}${service.prefix.replace('{project_id}', projectId ?? '')}`,
          },
        ],
      })),
    ];
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      return this.reply(res, json(400, { error: { code: 400, message: 'malformed JSON' } }));
    }
    const url = new URL(req.url ?? '/', this.origin);
    const method = req.method ?? 'GET';
    if (url.pathname.startsWith('/identity/v3')) {
      const path = url.pathname.slice('/identity/v3'.length);
      this.calls.push({ service: 'identity', method, path, projectId: null, body });
      if (this.injected('identity', method, path, res)) return;
      if (method === 'POST' && path === '/auth/tokens') {
        return this.reply(
          res,
          this.keystone.authenticate(body, (p) => this.catalog(p)),
        );
      }
      const token = this.keystone.valid(req.headers['x-auth-token']);
      if (!token)
        return this.reply(
          res,
          json(401, {
            error: { code: 401, message: 'The request you have made requires authentication.' },
          }),
        );
      if (!('domainId' in token.scope))
        return this.reply(
          res,
          json(403, {
            error: {
              code: 403,
              message: 'You are not authorized to perform the requested action.',
            },
          }),
        );
      return this.reply(res, this.keystone.admin(method, path, url.searchParams, body));
    }
    for (const service of this.services.values()) {
      const token = this.keystone.valid(req.headers['x-auth-token']);
      const prefix =
        token && 'projectId' in token.scope
          ? service.prefix.replace('{project_id}', token.scope.projectId)
          : service.prefix;
      if (!url.pathname.startsWith(prefix + '/') && url.pathname !== prefix) continue;
      const path = url.pathname.slice(prefix.length) || '/';
      if (!token || !('projectId' in token.scope)) {
        return this.reply(
          res,
          json(401, { error: { code: 401, message: 'Authentication required' } }),
        );
      }
      const projectId = token.scope.projectId;
      this.calls.push({ service: service.type, method, path, projectId, body });
      const handle = () =>
        service.handle({
          method,
          path,
          query: url.searchParams,
          body,
          headers: req.headers,
          projectId,
          userId: token.userId,
        });
      if (this.injected(service.type, method, path, res, handle)) return;
      return this.reply(res, handle());
    }
    return this.reply(
      res,
      json(404, { error: { code: 404, message: `nothing at ${url.pathname}` } }),
    );
  }

  private injected(
    service: string,
    method: string,
    path: string,
    res: ServerResponse,
    apply?: () => FakeReply,
  ): boolean {
    const failure = this.failures.find(
      (f) =>
        (!f.service || f.service === service) &&
        (!f.method || f.method === method) &&
        (!f.path || f.path.test(path)),
    );
    if (!failure) return false;
    failure.times = (failure.times ?? 1) - 1;
    if (failure.times <= 0) this.failures = this.failures.filter((f) => f !== failure);
    if (failure.afterApplying) apply?.();
    if (failure.hang) {
      this.hanging.add(res);
      return true;
    }
    this.reply(
      res,
      json(failure.status ?? 500, failure.body ?? { error: { message: 'injected failure' } }),
    );
    return true;
  }

  private reply(res: ServerResponse, reply: FakeReply): void {
    const payload = reply.body === undefined ? '' : JSON.stringify(reply.body);
    res.writeHead(reply.status, {
      ...(payload ? { 'content-type': 'application/json' } : {}),
      ...reply.headers,
    });
    res.end(payload);
  }
}
