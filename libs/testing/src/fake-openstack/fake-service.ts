import { randomUUID } from 'node:crypto';

/** A request a fake service handles, with the Keystone project of its token. */
export interface FakeRequest {
  method: string;
  /** The path below the service's catalog endpoint, e.g. `/servers/detail`. */
  path: string;
  query: URLSearchParams;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
  /** The project the token is scoped to (project-scoped services only). */
  projectId: string;
  /** The token's user (Nova keeps keypairs per user, not per project). */
  userId: string;
}

export interface FakeReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

type Handler = (request: FakeRequest, params: string[]) => FakeReply;

interface Route {
  method: string;
  pattern: RegExp;
  handler: Handler;
}

/** The routes of one OpenStack service, matched in the order they were added. */
export class FakeService {
  private readonly routes: Route[] = [];

  constructor(
    /** The catalog type, e.g. `compute`. */
    readonly type: string,
    /** The URL prefix below the fake's origin, e.g. `/compute/v2.1`. */
    readonly prefix: string,
  ) {}

  on(method: string, pattern: RegExp, handler: Handler): this {
    this.routes.push({ method, pattern, handler });
    return this;
  }

  handle(request: FakeRequest): FakeReply {
    for (const route of this.routes) {
      if (route.method !== request.method) continue;
      const match = route.pattern.exec(request.path);
      if (match) return route.handler(request, match.slice(1));
    }
    return {
      status: 404,
      body: { itemNotFound: { code: 404, message: `no route ${request.method} ${request.path}` } },
    };
  }
}

/**
 * Resources kept per Keystone project and collection, so one project never sees another's:
 * the tenancy the real cloud enforces with project-scoped tokens.
 */
export class ProjectResources {
  private readonly byProject = new Map<string, Map<string, Map<string, Record<string, unknown>>>>();

  collection(projectId: string, name: string): Map<string, Record<string, unknown>> {
    let project = this.byProject.get(projectId);
    if (!project) this.byProject.set(projectId, (project = new Map()));
    let collection = project.get(name);
    if (!collection) project.set(name, (collection = new Map()));
    return collection;
  }

  /** Stores a new object with a fresh uuid (unless it has an id) and answers it. */
  add<T extends Record<string, unknown>>(
    projectId: string,
    name: string,
    object: T,
  ): T & { id: string } {
    const stored = { id: randomUUID(), ...object } as T & { id: string };
    this.collection(projectId, name).set(String(stored.id), stored);
    return stored;
  }

  /** Every project's objects of a collection (for assertions). */
  everywhere(name: string): Array<Record<string, unknown>> {
    return [...this.byProject.values()].flatMap((project) => [
      ...(project.get(name)?.values() ?? []),
    ]);
  }
}

export const json = (status: number, body?: unknown): FakeReply => ({ status, body });

/** A Nova-style not-found answer. */
export const novaNotFound = (what: string): FakeReply =>
  json(404, { itemNotFound: { code: 404, message: `${what} could not be found.` } });

/** A Neutron-style error answer. */
export const neutronError = (status: number, type: string, message: string): FakeReply =>
  json(status, { NeutronError: { type, message, detail: '' } });

export const badRequest = (message: string): FakeReply =>
  json(400, { badRequest: { code: 400, message } });
