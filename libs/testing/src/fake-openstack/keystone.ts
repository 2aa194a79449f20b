import { randomBytes, randomUUID } from 'node:crypto';
import type { FakeReply } from './fake-service.js';
import { json } from './fake-service.js';

export interface KeystoneUser {
  id: string;
  name: string;
  password: string;
  domain: string;
}

export interface IssuedToken {
  value: string;
  userId: string;
  scope: { projectId: string } | { domainId: string };
  expiresAt: number;
  revoked: boolean;
}

interface AuthBody {
  identity?: {
    methods?: string[];
    password?: { user?: { name?: string; password?: string; domain?: { name?: string } } };
    application_credential?: { id?: string; secret?: string };
  };
  scope?: {
    project?: { id?: string; name?: string; domain?: { name?: string } };
    domain?: { name?: string };
  };
}

/** An application credential of the fake's user, good for one project. */
export interface ApplicationCredential {
  id: string;
  secret: string;
  projectId: string;
}

export interface KeystoneProject {
  id: string;
  name: string;
  domain_id: string;
  description: string;
  enabled: boolean;
}

/**
 * The Keystone v3 of the fake: password auth with project or domain scope, the project list
 * and create, the role list and role assignments. Only a domain-scoped token may administer
 * projects; a project-scoped token needs a role assignment of its user in that project.
 */
export class FakeKeystone {
  readonly domains = new Map<string, string>([['Default', 'default']]);
  readonly projects = new Map<string, KeystoneProject>();
  readonly roles = new Map<string, string>([
    ['member', randomUUID()],
    ['reader', randomUUID()],
  ]);
  /** `projectId:userId` → role ids. */
  readonly assignments = new Map<string, Set<string>>();
  readonly tokens = new Map<string, IssuedToken>();
  readonly applicationCredentials = new Map<string, ApplicationCredential>();
  /** How many POST /v3/auth/tokens the fake answered (any outcome). */
  authRequests = 0;
  /** POST /v3/projects it answered 201 to. */
  projectsCreated = 0;
  tokenTtlMs = 3_600_000;
  /** The fake's time for token expiry: set it to a test's clock to move time for both. */
  now: () => number = Date.now;

  constructor(readonly user: KeystoneUser) {}

  /** A project the user may use (member role), as a test would have an administrator set up. */
  addProject(name: string): KeystoneProject {
    const project: KeystoneProject = {
      id: randomUUID().replace(/-/g, ''),
      name,
      domain_id: 'default',
      description: '',
      enabled: true,
    };
    this.projects.set(project.id, project);
    this.assignments.set(`${project.id}:${this.user.id}`, new Set([this.roles.get('member')!]));
    return project;
  }

  /** An application credential of the user for `projectId` (as `openstack application credential create`). */
  addApplicationCredential(projectId: string): ApplicationCredential {
    const credential = {
      id: randomUUID().replace(/-/g, ''),
      secret: randomBytes(16).toString('hex'),
      projectId,
    };
    this.applicationCredentials.set(credential.id, credential);
    return credential;
  }

  authenticate(body: unknown, catalog: (projectId: string | null) => unknown[]): FakeReply {
    this.authRequests++;
    const auth = (body as { auth?: AuthBody } | undefined)?.auth;
    if (auth?.identity?.methods?.includes('application_credential')) {
      return this.authenticateApplicationCredential(auth, catalog);
    }
    const user = auth?.identity?.password?.user;
    if (
      !auth?.identity?.methods?.includes('password') ||
      user?.name !== this.user.name ||
      user?.password !== this.user.password ||
      user?.domain?.name !== this.user.domain
    ) {
      return json(401, {
        error: {
          code: 401,
          title: 'Unauthorized',
          message: 'The request you have made requires authentication.',
        },
      });
    }
    const scope = auth.scope;
    let tokenScope: IssuedToken['scope'];
    const projectId = scope?.project?.id ?? this.projectNamed(scope?.project);
    if (scope?.project) {
      if (
        !projectId ||
        !this.projects.has(projectId) ||
        !this.assignments.get(`${projectId}:${this.user.id}`)?.size
      ) {
        return json(401, {
          error: { code: 401, title: 'Unauthorized', message: 'User has no access to project' },
        });
      }
      tokenScope = { projectId };
      this.projectAuths.set(projectId, (this.projectAuths.get(projectId) ?? 0) + 1);
    } else if (scope?.domain?.name && this.domains.has(scope.domain.name)) {
      tokenScope = { domainId: this.domains.get(scope.domain.name)! };
    } else {
      return json(400, {
        error: { code: 400, title: 'Bad Request', message: 'a scope is required' },
      });
    }
    return this.issue(tokenScope, scope?.domain?.name ?? '', catalog, 'password');
  }

  private projectNamed(project: { name?: string; domain?: { name?: string } } | undefined) {
    const domainId = project?.domain?.name ? this.domains.get(project.domain.name) : undefined;
    if (!project?.name || !domainId) return undefined;
    return [...this.projects.values()].find(
      (p) => p.name === project.name && p.domain_id === domainId,
    )?.id;
  }

  private authenticateApplicationCredential(
    auth: AuthBody,
    catalog: (projectId: string | null) => unknown[],
  ): FakeReply {
    const given = auth.identity?.application_credential;
    const credential = given?.id ? this.applicationCredentials.get(given.id) : undefined;
    if (!credential || credential.secret !== given?.secret) {
      return json(401, {
        error: {
          code: 401,
          title: 'Unauthorized',
          message: 'The request you have made requires authentication.',
        },
      });
    }
    // Keystone refuses a scope next to an application credential: it carries its own.
    if (auth.scope) {
      return json(401, {
        error: {
          code: 401,
          title: 'Unauthorized',
          message: 'Application credentials cannot request a scope.',
        },
      });
    }
    return this.issue({ projectId: credential.projectId }, '', catalog, 'application_credential');
  }

  private issue(
    tokenScope: IssuedToken['scope'],
    domainName: string,
    catalog: (projectId: string | null) => unknown[],
    method: string,
  ): FakeReply {
    const token: IssuedToken = {
      value: `gAAAA${randomBytes(24).toString('hex')}`,
      userId: this.user.id,
      scope: tokenScope,
      expiresAt: this.now() + this.tokenTtlMs,
      revoked: false,
    };
    this.tokens.set(token.value, token);
    const projectId = 'projectId' in tokenScope ? tokenScope.projectId : null;
    return {
      status: 201,
      headers: { 'x-subject-token': token.value },
      body: {
        token: {
          methods: [method],
          expires_at: new Date(token.expiresAt).toISOString(),
          issued_at: new Date(this.now()).toISOString(),
          user: {
            id: this.user.id,
            name: this.user.name,
            domain: { id: 'default', name: this.user.domain },
          },
          ...(projectId
            ? {
                project: {
                  id: projectId,
                  name: this.projects.get(projectId)!.name,
                  domain: { id: 'default' },
                },
              }
            : {
                domain: {
                  id: (tokenScope as { domainId: string }).domainId,
                  name: domainName,
                },
              }),
          roles: [{ id: this.roles.get('member'), name: 'member' }],
          catalog: catalog(projectId),
        },
      },
    };
  }

  /** Revokes every token issued so far (as an operator or a password change would). */
  revokeAll(): void {
    for (const token of this.tokens.values()) token.revoked = true;
  }

  /** Project-scoped auth requests answered so far, by project. */
  readonly projectAuths = new Map<string, number>();

  /** The live token of a request, or null (unknown, revoked or expired). */
  valid(value: string | string[] | undefined): IssuedToken | null {
    const token = typeof value === 'string' ? this.tokens.get(value) : undefined;
    return token && !token.revoked && token.expiresAt > this.now() ? token : null;
  }

  /** Admin calls below /v3 (projects, roles, assignments) with a domain-scoped token. */
  admin(method: string, path: string, query: URLSearchParams, body: unknown): FakeReply {
    if (method === 'GET' && path === '/projects') {
      const name = query.get('name');
      const domain = query.get('domain_id');
      return json(200, {
        projects: [...this.projects.values()].filter(
          (p) => (!name || p.name === name) && (!domain || p.domain_id === domain),
        ),
      });
    }
    if (method === 'POST' && path === '/projects') {
      const project = (body as { project?: Partial<KeystoneProject> } | undefined)?.project;
      if (!project?.name || !project.domain_id)
        return json(400, { error: { code: 400, message: 'name and domain_id are required' } });
      if (
        [...this.projects.values()].some(
          (p) => p.name === project.name && p.domain_id === project.domain_id,
        )
      ) {
        return json(409, {
          error: {
            code: 409,
            title: 'Conflict',
            message: `Duplicate entry found with name ${project.name}`,
          },
        });
      }
      const created: KeystoneProject = {
        id: randomUUID().replace(/-/g, ''),
        name: project.name,
        domain_id: project.domain_id,
        description: project.description ?? '',
        enabled: project.enabled ?? true,
      };
      this.projects.set(created.id, created);
      this.projectsCreated++;
      return json(201, { project: created });
    }
    if (method === 'GET' && path === '/roles') {
      const name = query.get('name');
      return json(200, {
        roles: [...this.roles]
          .filter(([n]) => !name || n === name)
          .map(([n, id]) => ({ id, name: n })),
      });
    }
    const assignment = /^\/projects\/([^/]+)\/users\/([^/]+)\/roles\/([^/]+)$/.exec(path);
    if (method === 'PUT' && assignment) {
      const [, projectId, userId, roleId] = assignment;
      if (!this.projects.has(projectId) || ![...this.roles.values()].includes(roleId)) {
        return json(404, { error: { code: 404, message: 'Could not find project or role' } });
      }
      const key = `${projectId}:${userId}`;
      if (!this.assignments.has(key)) this.assignments.set(key, new Set());
      this.assignments.get(key)!.add(roleId);
      return { status: 204 };
    }
    return json(404, { error: { code: 404, message: `no route ${method} ${path}` } });
  }
}
