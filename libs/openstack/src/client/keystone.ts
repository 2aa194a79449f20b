import type { Clock, OpenStackConfig } from '@platform/core';
import { providerAuthFailed, providerUnavailable, type UpstreamHttp } from '@platform/cloud-core';

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

/** A token's scope: the service user's project domain (provisioning) or one tenant project. */
export type TokenScope = { domain: true } | { projectId: string };

const scopeKey = (scope: TokenScope) => ('projectId' in scope ? scope.projectId : ':domain');

interface TokenBody {
  token?: {
    expires_at?: string;
    catalog?: CatalogService[];
    user?: { id?: string };
    domain?: { id?: string };
  };
}

/**
 * Keystone v3 password authentication with a token cache per scope. A token is reused until 5
 * minutes before its `expires_at`; concurrent requests for the same scope share one auth call
 * (single-flight), so a burst of first requests costs Keystone one token.
 */
export class Keystone {
  private readonly cached = new Map<string, ScopedToken>();
  private readonly pending = new Map<string, Promise<ScopedToken>>();

  constructor(
    private readonly config: OpenStackConfig,
    private readonly http: UpstreamHttp,
    private readonly clock: Clock,
  ) {}

  /** `OPENSTACK_AUTH_URL` with its `/v3`, whether or not the setting carries it. */
  get identityUrl(): string {
    return /\/v3$/.test(this.config.authUrl) ? this.config.authUrl : `${this.config.authUrl}/v3`;
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
        body: {
          auth: {
            identity: {
              methods: ['password'],
              password: {
                user: {
                  name: this.config.username,
                  domain: { name: this.config.userDomain },
                  password: this.config.password,
                },
              },
            },
            scope:
              'projectId' in scope
                ? { project: { id: scope.projectId } }
                : { domain: { name: this.config.projectDomain } },
          },
        },
      },
      'identity',
    );
    if (answer.status === 401 || answer.status === 403) {
      throw providerAuthFailed('openstack', answer.status);
    }
    if (answer.status !== 201 && answer.status !== 200) {
      throw providerUnavailable(
        'openstack',
        `Keystone answered ${answer.status} to an auth request`,
      );
    }
    const value = answer.headers['x-subject-token'];
    const token = (answer.body as TokenBody | undefined)?.token;
    const expiresAt = Date.parse(token?.expires_at ?? '');
    if (typeof value !== 'string' || !token?.user?.id || !Number.isFinite(expiresAt)) {
      throw providerUnavailable('openstack', 'Keystone answered a token without subject or expiry');
    }
    return {
      value,
      expiresAt,
      catalog: token.catalog ?? [],
      userId: token.user.id,
      domainId: token.domain?.id ?? null,
    };
  }
}
