import type { V1OwnerReference } from '@kubernetes/client-node';
import { apiVersionOf, type KindRef, type KubeObject } from './kinds.js';
import { isKubeApiError } from './kube-api-error.js';
import { differsFrom } from './object-diff.js';
import type { ReconcileContext } from './reconciler.js';

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime: string;
  reason?: string;
  message?: string;
}

/** A controller reference to `owner`: its deletion deletes the child, and its events find it. */
export function ownerReference(owner: KubeObject): V1OwnerReference {
  const { name, uid } = owner.metadata;
  if (!name || !uid) throw new Error('An owner reference needs the owner as stored (name and uid)');
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name,
    uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * Sets one condition by type. lastTransitionTime changes only when the status does, so
 * re-setting the same condition leaves the list equal (and the status unwritten).
 */
export function setCondition(
  conditions: Condition[] | undefined,
  next: Omit<Condition, 'lastTransitionTime'>,
  now: Date,
): Condition[] {
  const list = conditions ?? [];
  const index = list.findIndex((condition) => condition.type === next.type);
  const existing = index < 0 ? undefined : list[index];
  const condition: Condition = {
    type: next.type,
    status: next.status,
    lastTransitionTime:
      existing && existing.status === next.status
        ? existing.lastTransitionTime
        : now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    ...(next.reason !== undefined ? { reason: next.reason } : {}),
    ...(next.message !== undefined ? { message: next.message } : {}),
  };
  if (index < 0) return [...list, condition];
  return list.map((current, position) => (position === index ? condition : current));
}

/**
 * Writes status through /status with a merge patch only when it differs from the live status;
 * always sets status.observedGeneration = metadata.generation. Returns whether it wrote.
 */
export async function writeStatus<T extends KubeObject>(
  context: ReconcileContext,
  kind: KindRef,
  object: T,
  status: object,
): Promise<boolean> {
  const desired: Record<string, unknown> = { ...status };
  if (object.metadata.generation !== undefined) {
    desired.observedGeneration = object.metadata.generation;
  }
  if (!differsFrom(desired, object.status ?? {})) return false;
  // The cached copy may predate this operator's own last write: ask the server before writing.
  const fresh = await context.client.get<T>(
    kind,
    object.metadata.namespace,
    object.metadata.name ?? '',
  );
  if (!fresh) return false;
  if (!differsFrom(desired, fresh.status ?? {})) {
    object.status = fresh.status;
    return false;
  }
  const written = await context.client.mergePatchStatus<T>(
    kind,
    object.metadata.namespace,
    object.metadata.name ?? '',
    desired,
  );
  object.status = written.status;
  object.metadata.resourceVersion = written.metadata.resourceVersion;
  return true;
}

/**
 * Creates `desired` when missing; when present, merge-patches only if some field set in
 * `desired` differs from the live object, so an unchanged object writes nothing. Returns the
 * live object.
 */
export async function ensureObject<T extends KubeObject>(
  context: ReconcileContext,
  kind: KindRef,
  desired: T,
): Promise<T> {
  const namespace = kind.namespaced ? desired.metadata.namespace : undefined;
  const name = desired.metadata.name;
  if (!name) throw new Error(`ensureObject needs a name for the ${kind.kind}`);
  const object = { ...desired, apiVersion: apiVersionOf(kind), kind: kind.kind } as T;
  const patch = desiredFields(object);
  const fromCache = cached<T>(context, kind, namespace, name);
  if (fromCache && !differsFrom(patch, fromCache)) return fromCache;
  // Missing from or different in the cache, which may lag this operator's own writes: ask the server.
  let live = await context.client.get<T>(kind, namespace, name);
  if (!live) {
    try {
      return await context.client.create<T>(kind, object);
    } catch (error) {
      // Created since the cache (or the read) looked: compare with what is there.
      if (!isKubeApiError(error, 409)) throw error;
      live = await context.client.get<T>(kind, namespace, name);
      if (!live) throw error;
    }
  }
  if (!differsFrom(patch, live)) return live;
  return context.client.mergePatch<T>(kind, namespace, name, patch);
}

/** What ensureObject compares and patches: all but the type, identity and status. */
function desiredFields(object: KubeObject): Record<string, unknown> {
  const { apiVersion: _apiVersion, kind: _kind, status: _status, metadata, ...rest } = object;
  const { name: _name, namespace: _namespace, resourceVersion: _rv, ...meta } = metadata;
  return Object.keys(meta).length > 0 ? { ...rest, metadata: meta } : rest;
}

function cached<T extends KubeObject>(
  context: ReconcileContext,
  kind: KindRef,
  namespace: string | undefined,
  name: string,
): T | undefined {
  try {
    return context.cache<T>(kind).get(namespace, name);
  } catch {
    return undefined;
  }
}
