import { readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ResolvedKubeconfig } from './kubeconfig.js';

export type RequestHeaders = Record<string, string | string[]>;

/** Where the API server is and how to reach it: the connection pool and the credentials. */
export interface ClusterAccess {
  /** Base URL of the API server, without a trailing slash. */
  readonly server: string;
  readonly namespace: string | undefined;
  /** The agent (TLS settings, kept-alive connections) and credential headers of the next request. */
  prepare(): Promise<{ agent: http.Agent; headers: RequestHeaders }>;
}

const USER_AGENT = 'platform-operator';

/** Connections are kept and reused, and probed after 30 s idle, as client-go does. */
function keepAliveAgent(server: string, tls: https.AgentOptions): http.Agent {
  const options = { keepAlive: true, keepAliveMsecs: 30_000 };
  return server.startsWith('https:')
    ? new https.Agent({ ...options, ...tls })
    : new http.Agent(options);
}

/**
 * A kubeconfig's static credentials (token, token file, client certificate, basic auth,
 * impersonation) on one connection pool. A token file is read again once it is
 * `tokenRefreshMs` old, so rotated service account tokens take effect.
 */
export class KubeconfigAccess implements ClusterAccess {
  readonly server: string;
  readonly namespace: string | undefined;
  private readonly agent: http.Agent;
  private readonly headers: RequestHeaders;
  private fileToken: { value: string; readAt: number } | undefined;

  constructor(
    private readonly config: ResolvedKubeconfig,
    private readonly tokenRefreshMs = 60_000,
  ) {
    this.server = config.server;
    this.namespace = config.namespace;
    const { tls, credentials } = config;
    this.agent = keepAliveAgent(config.server, {
      ca: tls.ca,
      cert: tls.cert,
      key: tls.key,
      servername: tls.serverName,
      ...(tls.insecureSkipTlsVerify ? { rejectUnauthorized: false } : {}),
    });
    const headers: RequestHeaders = { 'User-Agent': USER_AGENT };
    if (credentials.basic) {
      const { username, password } = credentials.basic;
      headers.Authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
    }
    if (credentials.token) headers.Authorization = `Bearer ${credentials.token}`;
    if (credentials.impersonate) {
      headers['Impersonate-User'] = credentials.impersonate.user;
      if (credentials.impersonate.groups.length > 0) {
        headers['Impersonate-Group'] = credentials.impersonate.groups;
      }
    }
    this.headers = headers;
  }

  async prepare(): Promise<{ agent: http.Agent; headers: RequestHeaders }> {
    const { tokenFile } = this.config.credentials;
    if (!tokenFile) return { agent: this.agent, headers: this.headers };
    const now = Date.now();
    if (!this.fileToken || now - this.fileToken.readAt >= this.tokenRefreshMs) {
      const value = (await readFile(tokenFile, 'utf8')).trim();
      this.fileToken = { value, readAt: now };
    }
    return {
      agent: this.agent,
      headers: { ...this.headers, Authorization: `Bearer ${this.fileToken.value}` },
    };
  }
}

/**
 * Credentials through @kubernetes/client-node's KubeConfig: exec plugins, auth providers,
 * proxies, or a KubeConfig the caller already has. The library (and its generated API
 * clients, tens of megabytes) is loaded only when such a configuration is used.
 */
export class ClientNodeAccess implements ClusterAccess {
  private kubeConfig: Promise<KubeConfig> | undefined;
  private pool: { agent: http.Agent; tls: https.AgentOptions } | undefined;

  constructor(
    readonly server: string,
    readonly namespace: string | undefined,
    private readonly load: () => KubeConfig | Promise<KubeConfig>,
    private readonly proxied = false,
  ) {}

  async prepare(): Promise<{ agent: http.Agent; headers: RequestHeaders }> {
    // A failed load (say, an unreadable file) is tried again by the next request.
    this.kubeConfig ??= Promise.resolve()
      .then(() => this.load())
      .catch((error: unknown) => {
        this.kubeConfig = undefined;
        throw error;
      });
    const kubeConfig = await this.kubeConfig;
    const options: https.RequestOptions = {};
    await kubeConfig.applyToHTTPSOptions(options);
    const headers: RequestHeaders = { 'User-Agent': USER_AGENT };
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value : String(value);
    }
    if (options.auth) {
      headers.Authorization = `Basic ${Buffer.from(options.auth).toString('base64')}`;
    }
    // The library's proxy agents tunnel; otherwise its agents do not keep connections alive.
    if (this.proxied && options.agent instanceof http.Agent) {
      return { agent: options.agent, headers };
    }
    const tls: https.AgentOptions = {
      ca: options.ca,
      cert: options.cert,
      key: options.key,
      servername: options.servername,
      ...(options.rejectUnauthorized === false ? { rejectUnauthorized: false } : {}),
    };
    // An exec plugin may hand out a new client certificate: a new pool for new TLS material.
    if (!this.pool || !sameTls(this.pool.tls, tls)) {
      this.pool = { agent: keepAliveAgent(this.server, tls), tls };
    }
    return { agent: this.pool.agent, headers };
  }
}

function sameTls(a: https.AgentOptions, b: https.AgentOptions): boolean {
  const same = (x: unknown, y: unknown) =>
    Buffer.isBuffer(x) && Buffer.isBuffer(y) ? x.equals(y) : x === y;
  return (
    same(a.ca, b.ca) &&
    same(a.cert, b.cert) &&
    same(a.key, b.key) &&
    a.servername === b.servername &&
    a.rejectUnauthorized === b.rejectUnauthorized
  );
}
