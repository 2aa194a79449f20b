import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { parsedBody, PUBLIC_ROUTE } from '@platform/core';
import { CredentialVerifier } from '../auth/credential-verifier.js';
import { safeEqual } from '../auth/secrets.js';
import type { Account, ApiToken, Membership, Project } from '../entities.js';
import { IdentityErrorCode, IdentityException, notFound } from '../identity-exception.js';
import { MembershipsRepository } from '../organizations/memberships.repository.js';
import { ProjectsRepository } from '../organizations/projects.repository.js';
import { ACCESS_POLICY, type AccessPolicy, type TenantScope } from './authenticated.decorator.js';
import {
  type Credential,
  CSRF_HEADER,
  readCredential,
  STATIC_TOKEN_PREFIX,
  UNSAFE_METHODS,
} from './credentials.js';
import {
  allows,
  type Category,
  effectivePermissions,
  type Level,
  ROLE_PERMISSIONS,
  scopesAllow,
} from './permissions.js';
import type { AuthenticatedRequest, Principal } from './principal.js';
import { ProjectReadAhead } from './project-read-ahead.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Identity {
  account: Account;
  token: ApiToken | null;
  via: Principal['via'];
  session: Principal['session'];
  /** The token's membership in its organization, already read while verifying it. */
  tokenMembership?: Membership | null;
  /** The path's project, when it was read along with the credential (null: none exists). */
  project?: Project | null;
}

interface Tenant {
  organizationId: string | null;
  projectId: string | null;
  membership: Membership | null;
}

function pathParam(request: AuthenticatedRequest, name: string): string | undefined {
  const value: unknown = request.params[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The project id the route names, when it is a uuid: anything else names no project. A route
 * with `projectIn: 'query'` takes it from the query, else from the body (creates); `null` when
 * it names none there.
 */
async function requestedProjectId(
  request: AuthenticatedRequest,
  policy: AccessPolicy,
): Promise<string | undefined | null> {
  const projectId =
    policy.projectIn === 'query'
      ? await queryOrBodyProjectId(request)
      : pathParam(request, 'project_id');
  if (projectId === null) return null;
  return projectId && UUID.test(projectId) ? projectId : undefined;
}

/** The body is read only when the query names no project (a create), and then awaited. */
async function queryOrBodyProjectId(request: AuthenticatedRequest): Promise<string | null> {
  const fromQuery: unknown = request.query.project_id;
  if (fromQuery !== undefined && fromQuery !== '')
    return typeof fromQuery === 'string' ? fromQuery : null;
  const body = await parsedBody(request);
  const fromBody: unknown =
    body && typeof body === 'object' ? (body as Record<string, unknown>).project_id : undefined;
  return typeof fromBody === 'string' && fromBody !== '' ? fromBody : null;
}

/** A query-named project route without `project_id`: incomplete, not aimed elsewhere. */
const projectIdRequired = () =>
  new IdentityException(
    IdentityErrorCode.ValidationFailed,
    'Validation failed: project_id is required (query parameter, or in the body of a create)',
    { details: { fields: [{ field: 'project_id', messages: ['project_id is required'] }] } },
  );

const isStaticToken = (credential: Credential): credential is Credential & { kind: 'bearer' } =>
  credential.kind === 'bearer' && credential.value.startsWith(STATIC_TOKEN_PREFIX);

/** The `organization_id` query parameter, when one is given. */
function requestedOrganization(request: AuthenticatedRequest): string | undefined {
  const query = request.query.organization_id;
  return typeof query === 'string' && query !== '' ? query : undefined;
}

const unauthorized = (
  message = 'Authentication required',
): InstanceType<typeof IdentityException> =>
  new IdentityException(IdentityErrorCode.Unauthorized, message, {
    headers: { 'WWW-Authenticate': 'Bearer' },
  });

/**
 * Axis A for every route: authenticates the caller (bearer JWT, static token or session
 * cookie with CSRF), resolves the tenant the request acts in, and checks the route's declared
 * permission. Tenants the caller cannot see answer 404, so their existence never leaks.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly credentials: CredentialVerifier,
    private readonly memberships: MembershipsRepository,
    private readonly projects: ProjectsRepository,
    private readonly readAhead: ProjectReadAhead,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const policy = this.reflector.getAllAndOverride<AccessPolicy | undefined>(
      ACCESS_POLICY,
      targets,
    );
    if (!policy)
      throw new Error(
        `${context.getClass().name}.${context.getHandler().name} declares no access policy`,
      );

    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const credential = readCredential(request);
    if (credential.kind === 'none') throw unauthorized();
    const named =
      policy.scope === 'project' ? await requestedProjectId(request, policy) : undefined;
    const projectId = named ?? undefined;
    // The project is read while the credential is checked (by a static token's own read, else
    // alongside it), and looked at only once the caller is authenticated, so an anonymous
    // caller learns nothing from it; when authentication fails first, nobody awaits the read,
    // whose failure is then of no interest.
    const readWithToken = projectId !== undefined && isStaticToken(credential);
    const project =
      projectId !== undefined && !readWithToken ? this.projects.findById(projectId) : undefined;
    project?.catch(() => undefined);
    if (projectId !== undefined) this.readAhead.start(projectId, context, request);
    const identity = await this.authenticate(
      request,
      credential,
      policy,
      readWithToken ? projectId : undefined,
    );
    // Asked only of an authenticated caller, so an anonymous one still gets 401.
    if (named === null) throw projectIdRequired();
    if (policy.interactiveOnly && identity.token) {
      throw new IdentityException(
        IdentityErrorCode.InteractiveSessionRequired,
        'This operation needs a login session, not a static token',
      );
    }
    if (policy.platformAdmin && !identity.account.isPlatformAdmin) {
      throw new IdentityException(IdentityErrorCode.Forbidden, 'Only platform admins may do this');
    }
    const tenant =
      policy.scope === 'project'
        ? await this.projectTenant(
            request,
            identity.project !== undefined ? identity.project : ((await project) ?? null),
            identity,
          )
        : await this.resolveTenant(request, policy.scope, identity);
    const permissions = this.permissionsOf(identity.account, tenant.membership);
    if (policy.permission) this.checkPermission(policy.permission, permissions);
    if (identity.token) this.checkScope(policy, identity.token);

    request.principal = { ...identity, ...tenant, permissions };
    if (request.context) {
      request.context.organizationId = tenant.organizationId;
      if (tenant.projectId) request.context.projectId = tenant.projectId;
    }
    return true;
  }

  private async authenticate(
    request: AuthenticatedRequest,
    credential: Exclude<Credential, { kind: 'none' }>,
    policy: AccessPolicy,
    projectId: string | undefined,
  ): Promise<Identity> {
    if (isStaticToken(credential)) {
      const verified = await this.credentials.staticToken(credential.value, {
        acceptIngest: policy.acceptsIngestToken === true,
        projectId,
      });
      if (!verified) throw unauthorized('Invalid or revoked token');
      return {
        account: verified.account,
        token: verified.token,
        via: 'token',
        session: null,
        tokenMembership: verified.membership,
        project: verified.project,
      };
    }
    const verified = await this.credentials.session(credential.value);
    if (!verified) throw unauthorized('Invalid or expired session');
    if (credential.kind === 'cookie' && UNSAFE_METHODS.has(request.method)) {
      const header = request.headers[CSRF_HEADER];
      if (
        !credential.csrfCookie ||
        typeof header !== 'string' ||
        !safeEqual(header, credential.csrfCookie)
      ) {
        throw new IdentityException(
          IdentityErrorCode.InvalidCsrfToken,
          'Missing or wrong X-CSRF-Token header',
        );
      }
    }
    const { id, issuedAt } = verified.session;
    return {
      account: verified.account,
      token: null,
      via: credential.kind,
      session: { id, issuedAt },
    };
  }

  private async projectTenant(
    request: AuthenticatedRequest,
    project: Project | null,
    identity: Identity,
  ): Promise<Tenant> {
    const requested = requestedOrganization(request);
    if (!project || (requested && requested !== project.organizationId)) throw notFound('Project');
    // A project-bound token (an ingest token) names its project; any other one is refused
    // as such, as the alerting API specifies, rather than hidden behind a 404.
    if (identity.token?.projectId && identity.token.projectId !== project.id) {
      throw new IdentityException(
        IdentityErrorCode.StaticTokenCrossProject,
        'This token is bound to a different project',
      );
    }
    const membership = await this.membershipIn(identity, project.organizationId, 'Project');
    return { organizationId: project.organizationId, projectId: project.id, membership };
  }

  private async resolveTenant(
    request: AuthenticatedRequest,
    scope: Exclude<TenantScope, 'project'>,
    identity: Identity,
  ): Promise<Tenant> {
    if (scope === 'account') return { organizationId: null, projectId: null, membership: null };
    const requested = requestedOrganization(request);

    let organizationId =
      pathParam(request, 'org_id') ?? requested ?? identity.token?.organizationId;
    if (!organizationId) {
      const all = await this.memberships.listForAccount(identity.account.id);
      if (all.length !== 1) {
        throw new IdentityException(
          IdentityErrorCode.OrganizationRequired,
          all.length === 0
            ? 'This account belongs to no organization; pass organization_id'
            : 'This account belongs to several organizations; pass organization_id',
        );
      }
      organizationId = all[0].organization_id;
    }
    const membership = await this.membershipIn(identity, organizationId, 'Organization');
    return { organizationId, projectId: null, membership };
  }

  /** The caller's membership in the organization; 404 when the caller may not see it at all. */
  private async membershipIn(
    identity: Identity,
    organizationId: string,
    what: string,
  ): Promise<Membership | null> {
    if (!UUID.test(organizationId)) throw notFound(what);
    if (identity.token && identity.token.organizationId !== organizationId) throw notFound(what);
    const membership =
      identity.tokenMembership !== undefined
        ? identity.tokenMembership
        : await this.memberships.find(identity.account.id, organizationId);
    if (membership) return membership;
    if (
      identity.account.isPlatformAdmin &&
      (await this.projects.organizationExists(organizationId))
    )
      return null;
    throw notFound(what);
  }

  private permissionsOf(account: Account, membership: Membership | null) {
    if (account.isPlatformAdmin) return ROLE_PERMISSIONS.admin;
    return membership ? effectivePermissions(membership.role, membership.permissions) : null;
  }

  private checkPermission(
    permission: NonNullable<AccessPolicy['permission']>,
    permissions: Principal['permissions'],
  ): void {
    const [category, level] = permission.split(':') as [Category, Level];
    if (!permissions || !allows(permissions, category, level)) {
      throw new IdentityException(
        IdentityErrorCode.Forbidden,
        `Missing permission ${category}:${level}`,
      );
    }
  }

  /**
   * A static token acts with the intersection of its owner's permissions and its scopes: the
   * route's scope is its permission's, or the finer (or account-wide) one it names. A route
   * naming neither (any member of the tenant) asks no scope.
   */
  private checkScope(policy: AccessPolicy, token: ApiToken): void {
    const [category, level] = (policy.permission?.split(':') ?? []) as [Category?, Level?];
    const resource = policy.scopeResource ?? category;
    const scopeLevel = policy.scopeLevel ?? level;
    if (!resource || !scopeLevel) return;
    if (!scopesAllow(token.scopes, resource, scopeLevel)) {
      throw new IdentityException(
        IdentityErrorCode.InsufficientScope,
        `The token's scopes do not cover ${resource}:${scopeLevel}`,
      );
    }
  }
}
