import { isIP } from 'node:net';
import { redactSecretText } from '../logging/redact.js';

/**
 * Process configuration, read once from the environment and validated before anything
 * starts. Every problem is collected so one failed start names every bad variable.
 */
export type NodeEnv = 'development' | 'production' | 'test';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface PhoneProviderConfig {
  apiUrl: string;
  accountSid: string;
  authToken: string;
  from: string;
}

/** The Ceph RGW behind /rgw (4-cloud-resources.md, Object storage). */
export interface RgwAdminConfig {
  /** RGW_ADMIN_URL: where the Admin Ops API (`/admin/...`) is reached. */
  adminUrl: string;
  accessKey: string;
  secretKey: string;
  /** RGW_REGION: the SigV4 signing region, default `us-east-1`. */
  region: string;
  /** RGW_S3_URL: the S3 endpoint bucket creates are sent to, default the admin URL. */
  s3Url: string;
}

/** Keystone v3 of the OpenStack cloud behind /cloud, /dns and VPN (4-cloud-resources.md). */
export interface OpenStackConfig {
  authUrl: string;
  username: string;
  password: string;
  /** OPENSTACK_USER_DOMAIN: the service user's domain (name), default `Default`. */
  userDomain: string;
  /** OPENSTACK_PROJECT_DOMAIN: where the Keystone project of each tenant lives, default `Default`. */
  projectDomain: string;
  /** OPENSTACK_REGION: the catalog region to call; null takes each service's first public endpoint. */
  region: string | null;
}

/** Settings of the operator processes (unused by the API and the worker). */
export interface OperatorSettings {
  /** KUBECONFIG: a kubeconfig file; unset means the pod's service account. */
  kubeconfig: string | null;
  /** WATCH_NAMESPACE, comma-separated; empty means every namespace. */
  watchNamespaces: string[];
  leaderElection: boolean;
  /** LEADER_ELECTION_NAMESPACE; unset means the operator's own namespace. */
  leaderElectionNamespace: string | null;
  /** LEASE_NAME; unset means `<operator name>-leader`. */
  leaseName: string | null;
  /** POD_NAME: this replica's identity in the lease; unset means hostname and pid. */
  podName: string | null;
  resyncPeriodSeconds: number;
  reconcileWorkers: number;
}

export interface PasswordHashingCost {
  memoryCostKiB: number;
  timeCost: number;
  parallelism: number;
}

/** argon2id at the argon2 library's defaults: 64 MiB, 3 passes, 4 lanes. */
export const PASSWORD_HASHING: Readonly<PasswordHashingCost> = {
  memoryCostKiB: 65536,
  timeCost: 3,
  parallelism: 4,
};

export interface AppConfig {
  nodeEnv: NodeEnv;
  port: number;
  /** WORKER_PORT: the worker's probe and metrics port (0: any free port). */
  workerPort: number;
  /**
   * SHUTDOWN_DELAY_SECONDS: after SIGTERM, how long the API reports not ready while it still
   * serves, so load balancers stop routing to it before it stops listening.
   */
  shutdownDelaySeconds: number;
  /** SHUTDOWN_TIMEOUT_SECONDS: the most a graceful stop may take before the process gives up. */
  shutdownTimeoutSeconds: number;
  publicUrl: string;
  databaseUrl: string;
  redisUrl: string;
  /** Namespaces every Redis key and BullMQ queue, so several deployments or test files can share one Redis. */
  redisPrefix: string;
  /** Empty in a process that signs nothing (see LoadConfigOptions.usesSecretKey). */
  secretKey: string;
  /** True when SECRET_KEY was not set and the development value is in use. */
  secretKeyIsDefault: boolean;
  platformAdmin: { login: string; password: string } | null;
  /**
   * The cost of new password hashes (argon2id). Not read from the environment: production uses
   * PASSWORD_HASHING; tests build cheap hashes, since at this cost each takes about a quarter
   * second of both cores. Verifying reads the cost from the hash itself.
   */
  passwordHashing: PasswordHashingCost;
  smtpUrl: string | null;
  mailFrom: string;
  phone: PhoneProviderConfig | null;
  rgw: RgwAdminConfig | null;
  openstack: OpenStackConfig | null;
  /** GARDEN_KUBECONFIG: kubeconfig file of the Gardener garden cluster behind /k8s. */
  gardenKubeconfig: string | null;
  /** APPS_KUBECONFIG: kubeconfig file of the cluster that runs apps and workspaces (Flux). */
  appsKubeconfig: string | null;
  /**
   * DNS_RESOLVER: `host:port` of the DNS server domain verification asks, the host an IP
   * address (`[v6]:port` for IPv6); null: the system resolver.
   */
  dnsResolver: string | null;
  testAlertAutoResolveSeconds: number;
  signedLinkTtlSeconds: number;
  digestFlushIntervalSeconds: number;
  /** How often the worker's escalation sweeper looks for due work Redis may have lost. */
  escalationSweepIntervalMs: number;
  /**
   * How often the worker sweeps the alert timeline for first-firing and resolution
   * notifications whose dispatch Redis lost (0: never).
   */
  alertDispatchSweepIntervalMs: number;
  /** Memory the API may hold for search texts of searched projects, in MiB (0: none). */
  alertSearchMemoryMb: number;
  /**
   * OUTBOUND_ALLOW_PRIVATE_NETWORKS: calls to URLs that users supply may reach loopback,
   * private, link-local and other non-public addresses (tests and closed networks only).
   */
  outboundAllowPrivateNetworks: boolean;
  /**
   * TRUSTED_PROXIES: the reverse proxies (addresses, CIDR ranges, or `loopback`, `linklocal`,
   * `uniquelocal`) whose X-Forwarded-For names the client; empty: the socket's peer is the
   * client, and X-Forwarded-For is ignored.
   */
  trustedProxies: string[];
  /**
   * RATE_LIMIT_EXEMPT_NETWORKS: client addresses or CIDR ranges (an office NAT, a load-test
   * host) that the per-address rate limits do not count; the login throttle counts them still.
   */
  rateLimitExemptNetworks: string[];
  /**
   * METRICS_TOKEN: when set, `/metrics` of every process answers only requests carrying
   * `Authorization: Bearer <token>`; unset, `/metrics` is public.
   */
  metricsToken: string | null;
  operator: OperatorSettings;
  logLevel: LogLevel;
}

export const DEVELOPMENT_SECRET_KEY = 'development-secret-key-do-not-use-in-production';
const MIN_PRODUCTION_SECRET_LENGTH = 32;
const MIN_METRICS_TOKEN_LENGTH = 16;

export class ConfigValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigValidationError';
  }
}

type Env = Record<string, string | undefined>;

class EnvReader {
  readonly problems: string[] = [];

  constructor(private readonly env: Env) {}

  raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  optionalString(name: string): string | null {
    return this.raw(name) ?? null;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^-?\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return Number(value);
  }

  url(name: string, fallback: string | null, protocols: string[]): string | null {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      this.problems.push(`${name} must be a URL (got "${value}")`);
      return fallback;
    }
    if (!protocols.includes(parsed.protocol.replace(/:$/, ''))) {
      this.problems.push(`${name} must use ${protocols.join(' or ')} (got "${value}")`);
      return fallback;
    }
    return value.replace(/\/+$/, '');
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (value === 'true' || value === 'false') return value === 'true';
    this.problems.push(`${name} must be true or false (got "${value}")`);
    return fallback;
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
      return fallback;
    }
    return value as T;
  }

  /** A group of variables that only make sense together: all set, or none. */
  group<K extends string>(names: Record<K, string>): Record<K, string> | null {
    const entries = Object.entries(names) as [K, string][];
    const set = entries.filter(([, variable]) => this.raw(variable) !== undefined);
    if (set.length === 0) return null;
    if (set.length < entries.length) {
      const missing = entries.filter(([, v]) => this.raw(v) === undefined).map(([, v]) => v);
      this.problems.push(
        `${missing.join(', ')} must be set together with ${set.map(([, v]) => v).join(', ')}`,
      );
      return null;
    }
    return Object.fromEntries(entries.map(([key, v]) => [key, this.raw(v)])) as Record<K, string>;
  }
}

/** An address, a CIDR range, or one of the names Express knows for address ranges. */
function isTrustedProxyEntry(entry: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

export interface LoadConfigOptions {
  /**
   * False for a process that signs nothing (the operators): SECRET_KEY is then neither
   * required nor read, and `secretKey` is empty, so nothing can be signed with a guessable key.
   * Default true.
   */
  usesSecretKey?: boolean;
}

export function loadConfig(env: Env = process.env, options: LoadConfigOptions = {}): AppConfig {
  const read = new EnvReader(env);
  const nodeEnv = read.oneOf<NodeEnv>('NODE_ENV', 'development', [
    'development',
    'production',
    'test',
  ]);

  const usesSecretKey = options.usesSecretKey ?? true;
  const secretKey = usesSecretKey ? read.raw('SECRET_KEY') : '';
  if (usesSecretKey && nodeEnv === 'production') {
    if (secretKey === undefined) {
      read.problems.push('SECRET_KEY is required when NODE_ENV=production');
    } else if (secretKey.length < MIN_PRODUCTION_SECRET_LENGTH) {
      read.problems.push(
        `SECRET_KEY must be at least ${MIN_PRODUCTION_SECRET_LENGTH} characters when NODE_ENV=production`,
      );
    }
  }

  const platformAdmin = read.group({
    login: 'PLATFORM_ADMIN_LOGIN',
    password: 'PLATFORM_ADMIN_PASSWORD',
  });
  if (platformAdmin && !/^[^\s@]+@[^\s@]+$/.test(platformAdmin.login)) {
    read.problems.push(`PLATFORM_ADMIN_LOGIN must be an e-mail address`);
  }

  const phone = read.group({
    apiUrl: 'PHONE_API_URL',
    accountSid: 'PHONE_ACCOUNT_SID',
    authToken: 'PHONE_AUTH_TOKEN',
    from: 'PHONE_FROM',
  });
  if (phone) phone.apiUrl = read.url('PHONE_API_URL', phone.apiUrl, ['http', 'https'])!;

  const rgwCredentials = read.group({
    adminUrl: 'RGW_ADMIN_URL',
    accessKey: 'RGW_ACCESS_KEY',
    secretKey: 'RGW_SECRET_KEY',
  });
  const rgwAdminUrl =
    rgwCredentials && read.url('RGW_ADMIN_URL', rgwCredentials.adminUrl, ['http', 'https'])!;
  const rgw: RgwAdminConfig | null = rgwCredentials && {
    ...rgwCredentials,
    adminUrl: rgwAdminUrl!,
    region: read.string('RGW_REGION', 'us-east-1'),
    s3Url: read.url('RGW_S3_URL', rgwAdminUrl, ['http', 'https'])!,
  };

  const openstackCredentials = read.group({
    authUrl: 'OPENSTACK_AUTH_URL',
    username: 'OPENSTACK_USERNAME',
    password: 'OPENSTACK_PASSWORD',
  });
  const openstack: OpenStackConfig | null = openstackCredentials && {
    ...openstackCredentials,
    authUrl: read.url('OPENSTACK_AUTH_URL', openstackCredentials.authUrl, ['http', 'https'])!,
    userDomain: read.string('OPENSTACK_USER_DOMAIN', 'Default'),
    projectDomain: read.string('OPENSTACK_PROJECT_DOMAIN', 'Default'),
    region: read.optionalString('OPENSTACK_REGION'),
  };

  const mailFrom = read.string('MAIL_FROM', 'platform@localhost');
  if (!/^([^<>]*<)?[^\s@<>]+@[^\s@<>]+>?$/.test(mailFrom)) {
    read.problems.push(`MAIL_FROM must be an e-mail address (got "${mailFrom}")`);
  }

  const trustedProxies = (read.raw('TRUSTED_PROXIES') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of trustedProxies) {
    if (!isTrustedProxyEntry(entry)) {
      read.problems.push(
        `TRUSTED_PROXIES must list addresses, CIDR ranges, loopback, linklocal or uniquelocal (got "${entry}")`,
      );
    }
  }

  const rateLimitExemptNetworks = (read.raw('RATE_LIMIT_EXEMPT_NETWORKS') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of rateLimitExemptNetworks) {
    if (!isNetwork(entry)) {
      read.problems.push(
        `RATE_LIMIT_EXEMPT_NETWORKS must list IP addresses or CIDR ranges (got "${entry}")`,
      );
    }
  }

  const metricsToken = read.optionalString('METRICS_TOKEN');
  // Sent as a bearer credential: visible ASCII, long enough not to be guessed.
  if (
    metricsToken !== null &&
    (metricsToken.length < MIN_METRICS_TOKEN_LENGTH || !/^[\x21-\x7e]+$/.test(metricsToken))
  ) {
    read.problems.push(
      `METRICS_TOKEN must be at least ${MIN_METRICS_TOKEN_LENGTH} visible ASCII characters without spaces`,
    );
  }

  const redisPrefix = read.string('REDIS_PREFIX', 'platform');
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(redisPrefix)) {
    read.problems.push(`REDIS_PREFIX must be 1-64 characters of letters, digits, _ . : -`);
  }

  const alertDispatchSweepIntervalMs = read.integer(
    'ALERT_DISPATCH_SWEEP_INTERVAL_MS',
    5000,
    0,
    60000,
  );
  if (alertDispatchSweepIntervalMs > 0 && alertDispatchSweepIntervalMs < 50) {
    read.problems.push(
      `ALERT_DISPATCH_SWEEP_INTERVAL_MS must be 0 (off) or from 50 to 60000 (got "${alertDispatchSweepIntervalMs}")`,
    );
  }

  const port = read.integer('PORT', 3000, 1, 65535);
  const config: AppConfig = {
    nodeEnv,
    port,
    workerPort: read.integer('WORKER_PORT', 3001, 0, 65535),
    shutdownDelaySeconds: read.integer('SHUTDOWN_DELAY_SECONDS', 2, 0, 120),
    shutdownTimeoutSeconds: read.integer('SHUTDOWN_TIMEOUT_SECONDS', 25, 1, 3600),
    // Links follow the port the API listens on until a public address is configured.
    publicUrl: read.url('PUBLIC_URL', `http://localhost:${port}`, ['http', 'https'])!,
    databaseUrl: read.url('DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/platform', [
      'postgres',
      'postgresql',
    ])!,
    redisUrl: read.url('REDIS_URL', 'redis://127.0.0.1:6379', ['redis', 'rediss'])!,
    redisPrefix,
    secretKey: secretKey ?? DEVELOPMENT_SECRET_KEY,
    secretKeyIsDefault: secretKey === undefined,
    platformAdmin,
    passwordHashing: { ...PASSWORD_HASHING },
    smtpUrl: read.url('SMTP_URL', null, ['smtp', 'smtps']),
    mailFrom,
    phone,
    rgw,
    openstack,
    gardenKubeconfig: read.optionalString('GARDEN_KUBECONFIG'),
    appsKubeconfig: read.optionalString('APPS_KUBECONFIG'),
    dnsResolver: dnsResolverOf(read),
    testAlertAutoResolveSeconds: read.integer('TEST_ALERT_AUTO_RESOLVE_SECONDS', 600, 1, 86400),
    signedLinkTtlSeconds: read.integer('SIGNED_LINK_TTL_SECONDS', 86400, 60, 30 * 86400),
    digestFlushIntervalSeconds: read.integer('DIGEST_FLUSH_INTERVAL_SECONDS', 900, 10, 86400),
    escalationSweepIntervalMs: read.integer('ESCALATION_SWEEP_INTERVAL_MS', 5000, 50, 60000),
    alertDispatchSweepIntervalMs,
    alertSearchMemoryMb: read.integer('ALERT_SEARCH_MEMORY_MB', 256, 0, 1_048_576),
    outboundAllowPrivateNetworks: read.boolean('OUTBOUND_ALLOW_PRIVATE_NETWORKS', false),
    trustedProxies,
    rateLimitExemptNetworks,
    metricsToken,
    operator: {
      kubeconfig: read.optionalString('KUBECONFIG'),
      watchNamespaces: (read.raw('WATCH_NAMESPACE') ?? '')
        .split(',')
        .map((namespace) => namespace.trim())
        .filter((namespace) => namespace !== ''),
      leaderElection: read.boolean('LEADER_ELECTION', true),
      leaderElectionNamespace: read.optionalString('LEADER_ELECTION_NAMESPACE'),
      leaseName: read.optionalString('LEASE_NAME'),
      podName: read.optionalString('POD_NAME'),
      resyncPeriodSeconds: read.integer('RESYNC_PERIOD_SECONDS', 300, 1, 86400),
      reconcileWorkers: read.integer('RECONCILE_WORKERS', 4, 1, 64),
    },
    logLevel: read.oneOf<LogLevel>('LOG_LEVEL', 'info', [
      'fatal',
      'error',
      'warn',
      'info',
      'debug',
      'trace',
      'silent',
    ]),
  };

  if (read.problems.length > 0) throw new ConfigValidationError(read.problems);
  return config;
}

/** Loads the configuration or ends the process with a message naming every bad variable. */
export function loadConfigOrExit(
  env: Env = process.env,
  options: LoadConfigOptions = {},
): AppConfig {
  try {
    return loadConfig(env, options);
  } catch (error) {
    if (error instanceof ConfigValidationError) {
      // A rejected value is quoted in the message: a URL's password stays out of the log.
      process.stderr.write(`${redactSecretText(error.message)}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/** The injection token under which the validated configuration is provided. */
export const APP_CONFIG = Symbol('APP_CONFIG');

/**
 * DNS_RESOLVER as Node's resolver takes it. The host must be an address: the resolver cannot
 * look up the name of the server it is to ask.
 */
function dnsResolverOf(read: EnvReader): string | null {
  const value = read.raw('DNS_RESOLVER');
  if (value === undefined) return null;
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value);
  const host = match?.[1] ?? match?.[2];
  const family = match?.[1] ? 6 : 4;
  if (
    !match ||
    !host ||
    isIP(host) !== family ||
    Number(match[3]) < 1 ||
    Number(match[3]) > 65535
  ) {
    read.problems.push(
      `DNS_RESOLVER must be host:port with an IP address host, e.g. 10.0.0.53:53 or [2001:db8::53]:53 (got "${value}")`,
    );
    return null;
  }
  return value;
}

/** An IPv4 or IPv6 address, or a CIDR range with a prefix length its family allows. */
function isNetwork(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  const bits = isIP(address) === 4 ? 32 : isIP(address) === 6 ? 128 : 0;
  if (rest.length > 0 || bits === 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
}
