import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  apiGroupDocument,
  apiGroupList,
  apiResourceList,
  apiVersions,
  VERSION_INFO,
} from './discovery.js';
import { KubeStatusError, badRequest, failureStatus } from './errors.js';
import { type KindStore, storageKey } from './kind-store.js';
import { kindKey } from './kinds.js';
import { type StoredEntry, isPlainObject, parseEntry } from './objects.js';
import { applyJsonPatch, applyMergePatch } from './patch.js';
import type { PodLogs } from './pod-logs.js';
import { FieldSelector, LabelSelector } from './selectors.js';
import type { DeleteOptions, ObjectStore, PropagationPolicy } from './store.js';
import type { WatchHub } from './watch.js';

/** One request the server received. */
export interface KubeApiRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  kind?: string;
  namespace?: string;
  name?: string;
  subresource?: string;
}

interface ResourceRequest {
  store: KindStore;
  namespace?: string;
  name?: string;
  subresource?: string;
  watch: boolean;
}

export interface RouteContext {
  objects: ObjectStore;
  watches: WatchHub;
  podLogs: PodLogs;
  record(request: KubeApiRequest): void;
  readonly serverAddress: string;
}

const NOT_FOUND = () =>
  new KubeStatusError(404, 'NotFound', 'the server could not find the requested resource');

/** Routes an HTTP request to discovery, objects, watches or pod logs. */
export class KubeApiRoutes {
  constructor(private readonly context: RouteContext) {}

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const query = Object.fromEntries(url.searchParams.entries());
    const method = request.method ?? 'GET';
    const recorded: KubeApiRequest = { method, path: url.pathname, query };
    let isRecorded = false;
    try {
      const segments = url.pathname
        .split('/')
        .filter((segment) => segment !== '')
        .map(decodeSegment);
      const resource = this.resolve(segments);
      if (resource) {
        Object.assign(recorded, {
          kind: resource.store.registration.kind,
          namespace: resource.namespace,
          name: resource.name,
          subresource: resource.subresource,
        });
      }
      this.context.record(recorded);
      isRecorded = true;
      if (!resource) {
        if (method !== 'GET') throw NOT_FOUND();
        if (segments.length === 1 && ['healthz', 'readyz', 'livez'].includes(segments[0])) {
          response.writeHead(200, { 'Content-Type': 'text/plain' });
          response.end('ok');
          return;
        }
        sendJson(response, 200, JSON.stringify(this.discovery(segments)));
        return;
      }
      const body = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method)
        ? await readBody(request)
        : undefined;
      this.serve(method, resource, query, request.headers['content-type'], body, response);
    } catch (error) {
      if (!isRecorded) this.context.record(recorded);
      if (error instanceof KubeStatusError) {
        sendJson(response, error.code, JSON.stringify(error.toStatus()));
      } else {
        const message = error instanceof Error ? error.message : String(error);
        sendJson(response, 500, JSON.stringify(failureStatus(500, 'InternalError', message)));
      }
    }
  }

  private resolve(segments: string[]): ResourceRequest | undefined {
    let group: string;
    let rest: string[];
    if (segments[0] === 'api' && segments.length >= 3) {
      group = '';
      rest = segments.slice(2);
    } else if (segments[0] === 'apis' && segments.length >= 4) {
      group = segments[1];
      rest = segments.slice(3);
    } else return undefined;
    const version = group === '' ? segments[1] : segments[2];
    const watch = rest[0] === 'watch';
    if (watch) rest = rest.slice(1);
    let namespace: string | undefined;
    const namespaceSubresource =
      group === '' && rest.length === 3 && ['status', 'finalize'].includes(rest[2]);
    if (rest[0] === 'namespaces' && rest.length >= 3 && !namespaceSubresource) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
    if (rest.length === 0 || rest.length > 3) throw NOT_FOUND();
    const store = this.context.objects.kind(kindKey({ group, version, plural: rest[0] }));
    if (!store || (namespace !== undefined && !store.registration.namespaced)) throw NOT_FOUND();
    const [, name, subresource] = rest;
    if (subresource !== undefined) {
      const known =
        (subresource === 'status' && store.registration.statusSubresource) ||
        (subresource === 'log' && group === '' && rest[0] === 'pods');
      if (!known) throw NOT_FOUND();
    }
    return { store, namespace, name, subresource, watch };
  }

  private discovery(segments: string[]): unknown {
    const path = segments.join('/');
    if (path === 'version') return VERSION_INFO;
    if (path === 'api') return apiVersions(this.context.serverAddress);
    const stores = this.context.objects.allKinds();
    if (path === 'apis') {
      const groups = new Map<string, string[]>();
      for (const { registration } of stores) {
        if (!registration.group) continue;
        const versions = groups.get(registration.group) ?? [];
        if (!versions.includes(registration.version)) versions.push(registration.version);
        groups.set(registration.group, versions);
      }
      return apiGroupList(groups);
    }
    if (segments[0] === 'api' && segments.length === 2) {
      const matching = stores.filter(
        (s) => s.registration.group === '' && s.registration.version === segments[1],
      );
      if (matching.length === 0) throw NOT_FOUND();
      return apiResourceList(segments[1], matching);
    }
    if (segments[0] === 'apis' && segments.length === 2) {
      const versions = [
        ...new Set(
          stores
            .filter((s) => s.registration.group === segments[1])
            .map((s) => s.registration.version),
        ),
      ];
      if (versions.length === 0) throw NOT_FOUND();
      return apiGroupDocument(segments[1], versions);
    }
    if (segments[0] === 'apis' && segments.length === 3) {
      const [, group, version] = segments;
      const matching = stores.filter(
        (s) => s.registration.group === group && s.registration.version === version,
      );
      if (matching.length === 0) throw NOT_FOUND();
      return apiResourceList(`${group}/${version}`, matching);
    }
    throw NOT_FOUND();
  }

  private serve(
    method: string,
    resource: ResourceRequest,
    query: Record<string, string>,
    contentType: string | undefined,
    body: unknown,
    response: ServerResponse,
  ): void {
    const { store, namespace, name, subresource } = resource;
    const objects = this.context.objects;
    const ns = namespace ?? '';
    if (query.dryRun !== undefined) throw badRequest('dryRun is not supported by this server');
    if (resource.watch || query.watch === 'true' || query.watch === '1') {
      if (method !== 'GET') throw methodNotAllowed(method);
      this.watch(resource, query, response);
      return;
    }
    if (subresource === 'log') {
      if (method !== 'GET') throw methodNotAllowed(method);
      const text = this.context.podLogs.read(store, ns, name!, query.container, query.tailLines);
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      response.end(text);
      return;
    }
    const mode = subresource === 'status' ? 'status' : 'main';
    if (name === undefined) {
      if (method === 'GET')
        return sendList(
          response,
          store,
          this.listEntries(resource, query),
          objects.resourceVersion,
          query,
        );
      if (method === 'POST')
        return sendEntry(response, 201, objects.create(store, namespace, body, 'main'));
      if (method === 'DELETE') {
        const deleted = this.listEntries(resource, query).map((entry) =>
          objects.delete(store, entry.namespace, entry.name, deleteOptions(query, body)),
        );
        return sendList(response, store, deleted, objects.resourceVersion, {});
      }
      throw methodNotAllowed(method);
    }
    switch (method) {
      case 'GET':
        return sendEntry(response, 200, objects.read(store, ns, name));
      case 'PUT':
        return sendEntry(response, 200, objects.update(store, ns, name, body, mode));
      case 'PATCH': {
        const patched = applyPatch(parseEntry(objects.read(store, ns, name)), contentType, body);
        return sendEntry(response, 200, objects.update(store, ns, name, patched, mode));
      }
      case 'DELETE':
        if (subresource) throw methodNotAllowed(method);
        return sendEntry(
          response,
          200,
          objects.delete(store, ns, name, deleteOptions(query, body)),
        );
      default:
        throw methodNotAllowed(method);
    }
  }

  private listEntries(resource: ResourceRequest, query: Record<string, string>): StoredEntry[] {
    return this.context.objects.list(
      resource.store,
      resource.namespace,
      LabelSelector.parse(query.labelSelector),
      FieldSelector.parse(query.fieldSelector),
    );
  }

  private watch(
    resource: ResourceRequest,
    query: Record<string, string>,
    response: ServerResponse,
  ): void {
    const fields = FieldSelector.parse(
      [query.fieldSelector, resource.name && `metadata.name=${resource.name}`]
        .filter(Boolean)
        .join(','),
    );
    const timeout = query.timeoutSeconds === undefined ? undefined : Number(query.timeoutSeconds);
    if (timeout !== undefined && !(timeout >= 0)) throw badRequest('invalid timeoutSeconds');
    if (query.resourceVersion && !/^\d+$/.test(query.resourceVersion)) {
      throw badRequest(`invalid resource version: ${query.resourceVersion}`);
    }
    this.context.watches.start(
      {
        store: resource.store,
        namespace: resource.namespace,
        labels: LabelSelector.parse(query.labelSelector),
        fields,
        resourceVersion: query.resourceVersion,
        bookmarks: query.allowWatchBookmarks === 'true' || query.allowWatchBookmarks === '1',
        sendInitialEvents: query.sendInitialEvents === 'true',
        timeoutSeconds: timeout,
      },
      response,
    );
  }
}

function applyPatch(object: unknown, contentType: string | undefined, patch: unknown): unknown {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  switch (type) {
    case 'application/merge-patch+json':
    case 'application/strategic-merge-patch+json':
      if (!isPlainObject(patch)) throw badRequest('a merge patch must be a JSON object');
      return applyMergePatch(object, patch);
    case 'application/json-patch+json':
      return applyJsonPatch(object, patch);
    default:
      throw new KubeStatusError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json`,
      );
  }
}

function deleteOptions(query: Record<string, string>, body: unknown): DeleteOptions {
  const options = isPlainObject(body) ? body : {};
  let policy = (query.propagationPolicy ?? options.propagationPolicy) as
    PropagationPolicy | undefined;
  if (query.orphanDependents === 'true' || options.orphanDependents === true) policy = 'Orphan';
  if (policy !== undefined && !['Background', 'Foreground', 'Orphan'].includes(policy)) {
    throw badRequest(`unknown propagationPolicy "${String(policy)}"`);
  }
  const preconditions = isPlainObject(options.preconditions)
    ? (options.preconditions as DeleteOptions['preconditions'])
    : undefined;
  return { propagationPolicy: policy, preconditions };
}

const methodNotAllowed = (method: string) =>
  new KubeStatusError(
    405,
    'MethodNotAllowed',
    `the server does not allow this method on the requested resource (${method})`,
  );

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest(`invalid path segment "${segment}"`);
  }
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest('the body of the request is not valid JSON');
  }
}

function sendJson(response: ServerResponse, status: number, json: string): void {
  response.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(json),
  });
  response.end(json);
}

function sendEntry(response: ServerResponse, status: number, entry: StoredEntry): void {
  sendJson(response, status, entry.json);
}

/** Lists are assembled from the stored JSON of each item, without parsing or copying objects. */
function sendList(
  response: ServerResponse,
  store: KindStore,
  entries: StoredEntry[],
  resourceVersion: number,
  query: Record<string, string>,
): void {
  const { page, next } = paginate(entries, query, resourceVersion);
  const metadata = JSON.stringify({
    resourceVersion: String(resourceVersion),
    ...(next ? { continue: next } : {}),
  });
  const json = `{"apiVersion":"${store.apiVersion}","kind":"${store.registration.kind}List","metadata":${metadata},"items":[${page.map((entry) => entry.json).join(',')}]}`;
  sendJson(response, 200, json);
}

function paginate(entries: StoredEntry[], query: Record<string, string>, resourceVersion: number) {
  let start = 0;
  if (query.continue) {
    let after: string;
    try {
      after = (
        JSON.parse(Buffer.from(query.continue, 'base64url').toString('utf8')) as { after: string }
      ).after;
    } catch {
      throw badRequest('invalid continue token');
    }
    start = entries.findIndex((entry) => storageKey(entry) > after);
    if (start === -1) start = entries.length;
  }
  const limit = query.limit ? Number(query.limit) : 0;
  if (!(limit > 0) || start + limit >= entries.length)
    return { page: entries.slice(start), next: undefined };
  const page = entries.slice(start, start + limit);
  const last = page[page.length - 1];
  const token = JSON.stringify({ after: storageKey(last), rv: resourceVersion });
  return { page, next: Buffer.from(token).toString('base64url') };
}
