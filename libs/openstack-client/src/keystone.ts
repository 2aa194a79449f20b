import type { Clock } from '@platform/core';
import { type OpenStackFailures, PLAIN_FAILURES } from './errors.js';
import type { OpenStackTransport } from './transport.js';

/** Refresh a cached token this long before Keystone says it expires. */
export const TOKEN_REFRESH_MARGIN_MS = 5 * 60_000;

export interface CatalogEndpoint {
  interface: string;
  region?: string | null;
  region_id?: string | null;
  url: string;
}

export interface CatalogService {
  type: string;
  endpoints: CatalogEndpoint[];
}

/** What a scoped token is good for: the token itself, its catalog and its subject. */
export interface ScopedToken {
  value: string;
  expiresAt: number;
  catalog: CatalogService[];
  userId: string;
  /** The domain of a domain-scoped token (provisioning). */
  domainId: string | null;
}

/**
 * A token's scope: the credentials' project domain (provisioning), one project by id, or one
 * project by name within its domain (as clouds.yaml and `OS_PROJECT_NAME` name it).
 */
export type TokenScope =
  { domain: true } | { projectId: string } | { projectName: string; projectDomain: string };

const scopeKey = (scope: TokenScope) =>
  'projectId' in scope
    ? scope.projectId
    : 'projectName' in scope
      ? `${scope.projectDomain}:${scope.projectName}`
      : ':domain';

/**
 * Who authenticates: a user by password (its domain by name), or an application credential,
 * which carries its own project and so takes no scope of the request.
 */
export type KeystoneCredentials = {
  /** Keystone's URL, with or without its `/v3`. */
  authUrl: string;
  /** The domain (name) of `{ domain: true }` scopes. */
  projectDomain?: string;
} & (
  | { username: string; password: string; userDomain: string; applicationCredential?: undefined }
  | { applicationCredential: { id: string; secret: string } }
);

interface TokenBody {
  token?: {
    expires_at?: string;
    catalog?: CatalogService[];
    user?: { id?: string };
    domain?: { id?: string };
  };
}

/**
 * Keystone v3 authentication (password or application credential) with a token cache per
 * scope. A token is reused until 5 minutes before its `expires_at`; concurrent requests for the
 * same scope share one auth call (single-flight), so a burst of first requests costs Keystone
 * one token.
 */
export class Keystone {
  private readonly cached = new Map<string, ScopedToken>();
  private readonly pending = new Map<string, Promise<ScopedToken>>();

  constructor(
    private readonly credentials: KeystoneCredentials,
    private readonly http: OpenStackTransport,
    private readonly clock: Clock,
    private readonly failures: OpenStackFailures = PLAIN_FAILURES,
  ) {}

  /** The auth URL with its `/v3`, whether or not the setting carries it. */
  get identityUrl(): string {
    const url = this.credentials.authUrl.replace(/\/+$/, '');
    return /\/v3$/.test(url) ? url : `${url}/v3`;
  }

  async token(scope: TokenScope): Promise<ScopedToken> {
    const key = scopeKey(scope);
    const cached = this.cached.get(key);
    if (cached && this.clock.now().getTime() < cached.expiresAt - TOKEN_REFRESH_MARGIN_MS) {
      return cached;
    }
    const inFlight = this.pending.get(key);
    if (inFlight) return inFlight;
    const issued = this.issue(scope).finally(() => this.pending.delete(key));
    this.pending.set(key, issued);
    const token = await issued;
    this.cached.set(key, token);
    return token;
  }

  /** Forgets a token the cloud refused (revoked early), so the next call gets a new one. */
  forget(scope: TokenScope, token: ScopedToken): void {
    const key = scopeKey(scope);
    if (this.cached.get(key) === token) this.cached.delete(key);
  }

  private async issue(scope: TokenScope): Promise<ScopedToken> {
    const answer = await this.http.request(
      {
        method: 'POST',
        url: `${this.identityUrl}/auth/tokens`,
        body: { auth: this.authBody(scope) },
      },
      'identity',
    );
    if (answer.status === 401 || answer.status === 403) {
      throw this.failures.refused(answer.status);
    }
    if (answer.status !== 201 && answer.status !== 200) {
      throw this.failures.unavailable(`Keystone answered ${answer.status} to an auth request`);
    }
    const value = answer.headers['x-subject-token'];
    const token = (answer.body as TokenBody | undefined)?.token;
    const expiresAt = Date.parse(token?.expires_at ?? '');
    if (typeof value !== 'string' || !token?.user?.id || !Number.isFinite(expiresAt)) {
      throw this.failures.unavailable('Keystone answered a token without subject or expiry');
    }
    return {
      value,
      expiresAt,
      catalog: token.catalog ?? [],
      userId: token.user.id,
      domainId: token.domain?.id ?? null,
    };
  }

  private authBody(scope: TokenScope): Record<string, unknown> {
    const credentials = this.credentials;
    if (credentials.applicationCredential) {
      const { id, secret } = credentials.applicationCredential;
      return {
        identity: {
          methods: ['application_credential'],
          application_credential: { id, secret },
        },
      };
    }
    return {
      identity: {
        methods: ['password'],
        password: {
          user: {
            name: credentials.username,
            domain: { name: credentials.userDomain },
            password: credentials.password,
          },
        },
      },
      scope:
        'projectId' in scope
          ? { project: { id: scope.projectId } }
          : 'projectName' in scope
            ? { project: { name: scope.projectName, domain: { name: scope.projectDomain } } }
            : { domain: { name: credentials.projectDomain } },
    };
  }
}
