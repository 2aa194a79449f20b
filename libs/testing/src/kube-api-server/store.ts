import { randomUUID } from 'node:crypto';
import {
  KubeStatusError,
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  notFound,
} from './errors.js';
import { KindStore } from './kind-store.js';
import { OwnerIndex } from './owners.js';
import { type KindRegistration, kindKey } from './kinds.js';
import {
  type StoredEntry,
  type StoredObject,
  type WatchEventType,
  isPlainObject,
  parseEntry,
  timestamp,
  toEntry,
} from './objects.js';
import { deepEqual } from './patch.js';
import type { FieldSelector, LabelSelector } from './selectors.js';

/** Per-kind behaviour of the server beyond storage (CRD registration, schema defaults). */
export interface KindHooks {
  /** Adjusts or rejects an object about to be stored (throw a KubeStatusError). */
  prepare?(object: StoredObject, previous: StoredObject | undefined): void;
  /** Runs after an object was stored or removed. */
  committed?(type: WatchEventType, object: StoredObject): void;
}

/**
 * `main` is the resource endpoint (ignores status when the kind has a status subresource),
 * `status` the /status subresource (changes only status), `all` a controller writing both.
 */
export type WriteMode = 'main' | 'status' | 'all';

export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export interface DeleteOptions {
  propagationPolicy?: PropagationPolicy;
  preconditions?: { uid?: string; resourceVersion?: string };
}

const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const GENERATED_SUFFIX = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * Everything the server stores, with the semantics of the real API server: one resourceVersion
 * counter for all kinds, server-managed metadata, generation, the status subresource,
 * optimistic concurrency, finalizers and garbage collection through ownerReferences.
 */
export class ObjectStore {
  private rv = 0;
  private readonly kinds = new Map<string, KindStore>();
  private readonly hooks = new Map<string, KindHooks>();
  private readonly owners = new OwnerIndex();
  private readonly orphaning = new Set<string>();

  constructor(private readonly options: { now: () => Date; historyLimit: number }) {}

  get resourceVersion(): number {
    return this.rv;
  }

  register(registration: KindRegistration, hooks?: KindHooks): KindStore {
    const key = kindKey(registration);
    if (hooks) this.hooks.set(key, hooks);
    const existing = this.kinds.get(key);
    if (existing) {
      existing.registration = registration;
      return existing;
    }
    const store = new KindStore(registration, this.options.historyLimit);
    this.kinds.set(key, store);
    return store;
  }

  /** Removes a kind and its objects (as when its CRD is deleted). */
  unregister(key: string): void {
    const store = this.kinds.get(key);
    if (!store) return;
    for (const entry of store.entries()) this.finishDeletion(store, entry, parseEntry(entry));
    this.kinds.delete(key);
  }

  kind(key: string): KindStore | undefined {
    return this.kinds.get(key);
  }

  allKinds(): KindStore[] {
    return [...this.kinds.values()];
  }

  read(store: KindStore, namespace: string, name: string): StoredEntry {
    const entry = store.get(namespace, name);
    if (!entry) throw notFound(store.registration, name);
    return entry;
  }

  list(
    store: KindStore,
    namespace: string | undefined,
    labels?: LabelSelector,
    fields?: FieldSelector,
  ): StoredEntry[] {
    const exactName = fields?.exactName;
    const candidates =
      exactName !== undefined && namespace !== undefined
        ? [store.get(namespace, exactName)].filter((entry) => entry !== undefined)
        : store.entries(namespace);
    return candidates.filter(
      (entry) =>
        (!labels || labels.matches(entry.labels)) &&
        (!fields || fields.matches(entry.namespace, entry.name)),
    );
  }

  create(
    store: KindStore,
    namespace: string | undefined,
    body: unknown,
    mode: WriteMode,
  ): StoredEntry {
    const object = this.checkBody(store, body);
    const registration = store.registration;
    const metadata = object.metadata;
    if (registration.namespaced) {
      if (namespace && metadata.namespace && metadata.namespace !== namespace) {
        throw badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      }
      metadata.namespace = namespace || metadata.namespace;
      if (!metadata.namespace) {
        throw invalid(registration, metadata.name ?? '', ['metadata.namespace: Required value']);
      }
    } else delete metadata.namespace;
    const ns = metadata.namespace ?? '';
    if (!metadata.name && metadata.generateName)
      metadata.name = this.generateName(store, ns, metadata.generateName);
    if (!metadata.name) {
      throw invalid(registration, '', [
        'metadata.name: Required value: name or generateName is required',
      ]);
    }
    if (metadata.name.length > 253 || !NAME.test(metadata.name)) {
      throw invalid(registration, metadata.name, [
        `metadata.name: Invalid value: "${metadata.name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
      ]);
    }
    if (store.get(ns, metadata.name)) throw alreadyExists(registration, metadata.name);
    for (const field of [
      'resourceVersion',
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
      'managedFields',
      'selfLink',
    ]) {
      delete metadata[field];
    }
    metadata.uid = randomUUID();
    metadata.creationTimestamp = timestamp(this.options.now());
    metadata.generation = 1;
    if (mode === 'main' && registration.statusSubresource) delete object.status;
    omitEmpty(object);
    this.hooksOf(store).prepare?.(object, undefined);
    return this.commit('ADDED', store, undefined, object);
  }

  update(
    store: KindStore,
    namespace: string,
    name: string,
    body: unknown,
    mode: WriteMode,
    checkResourceVersion = true,
  ): StoredEntry {
    const existing = this.read(store, namespace, name);
    const registration = store.registration;
    const incoming = this.checkBody(store, body);
    const incomingMeta = incoming.metadata;
    if (incomingMeta.name && incomingMeta.name !== name) {
      throw badRequest(
        `the name of the object (${incomingMeta.name}) does not match the name on the URL (${name})`,
      );
    }
    if (registration.namespaced && incomingMeta.namespace && incomingMeta.namespace !== namespace) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    if (
      checkResourceVersion &&
      !incomingMeta.resourceVersion &&
      registration.requireResourceVersionOnUpdate
    ) {
      throw invalid(registration, name, [
        'metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
      ]);
    }
    if (
      checkResourceVersion &&
      incomingMeta.resourceVersion &&
      incomingMeta.resourceVersion !== String(existing.rv)
    ) {
      throw conflict(registration, name);
    }
    const previous = parseEntry(existing);
    let next: StoredObject;
    if (mode === 'status') {
      next = parseEntry(existing);
      if (incoming.status === undefined) delete next.status;
      else next.status = incoming.status;
    } else {
      next = incoming;
      if (mode === 'main' && registration.statusSubresource) {
        if (previous.status === undefined) delete next.status;
        else next.status = previous.status;
      }
      const kept = previous.metadata;
      next.metadata = {
        ...incomingMeta,
        name: kept.name,
        ...(registration.namespaced ? { namespace: kept.namespace } : {}),
        uid: kept.uid,
        creationTimestamp: kept.creationTimestamp,
        generation: kept.generation,
      };
      delete next.metadata.managedFields;
      delete next.metadata.selfLink;
      delete next.metadata.deletionTimestamp;
      delete next.metadata.deletionGracePeriodSeconds;
      if (kept.deletionTimestamp) {
        next.metadata.deletionTimestamp = kept.deletionTimestamp;
        next.metadata.deletionGracePeriodSeconds = kept.deletionGracePeriodSeconds;
        const added = (next.metadata.finalizers ?? []).filter((f) => !kept.finalizers?.includes(f));
        if (added.length > 0) {
          throw invalid(registration, name, [
            `metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
          ]);
        }
      }
    }
    if (!registration.namespaced) delete next.metadata.namespace;
    omitEmpty(next);
    this.hooksOf(store).prepare?.(next, previous);
    if (contentChanged(previous, next, registration.statusSubresource === true)) {
      next.metadata.generation = (previous.metadata.generation ?? 0) + 1;
    }
    next.metadata.resourceVersion = previous.metadata.resourceVersion;
    if (next.metadata.deletionTimestamp && !next.metadata.finalizers?.length) {
      return this.finishDeletion(store, existing, next);
    }
    if (deepEqual(previous, next)) return existing;
    return this.commit('MODIFIED', store, existing, next);
  }

  delete(
    store: KindStore,
    namespace: string,
    name: string,
    options: DeleteOptions = {},
  ): StoredEntry {
    const existing = this.read(store, namespace, name);
    const { uid, resourceVersion } = options.preconditions ?? {};
    if (
      (uid && uid !== existing.uid) ||
      (resourceVersion && resourceVersion !== String(existing.rv))
    ) {
      throw new KubeStatusError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${store.registration.plural} "${name}": the precondition does not match the object`,
      );
    }
    const policy =
      options.propagationPolicy ?? store.registration.defaultPropagationPolicy ?? 'Background';
    if (policy === 'Orphan') this.orphaning.add(existing.uid);
    if (existing.finalizers === 0) {
      return this.finishDeletion(store, existing, parseEntry(existing), policy);
    }
    if (existing.deleting) return existing;
    const object = parseEntry(existing);
    object.metadata.deletionTimestamp = timestamp(this.options.now());
    object.metadata.deletionGracePeriodSeconds = 0;
    object.metadata.generation = (object.metadata.generation ?? 0) + 1;
    return this.commit('MODIFIED', store, existing, object);
  }

  private checkBody(store: KindStore, body: unknown): StoredObject {
    if (!isPlainObject(body)) throw badRequest('the body of the request must be a JSON object');
    const object = JSON.parse(JSON.stringify(body)) as StoredObject;
    const registration = store.registration;
    if (object.apiVersion !== undefined && object.apiVersion !== store.apiVersion) {
      throw badRequest(
        `the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${store.apiVersion})`,
      );
    }
    if (object.kind !== undefined && object.kind !== registration.kind) {
      throw badRequest(
        `the kind in the data (${String(object.kind)}) does not match the expected kind (${registration.kind})`,
      );
    }
    if (object.metadata !== undefined && !isPlainObject(object.metadata)) {
      throw badRequest('metadata must be an object');
    }
    return {
      ...object,
      apiVersion: store.apiVersion,
      kind: registration.kind,
      metadata: object.metadata ?? {},
    };
  }

  private generateName(store: KindStore, namespace: string, prefix: string): string {
    for (;;) {
      let suffix = '';
      for (let i = 0; i < 5; i++)
        suffix += GENERATED_SUFFIX[Math.floor(Math.random() * GENERATED_SUFFIX.length)];
      const name = `${prefix}${suffix}`;
      if (!store.get(namespace, name)) return name;
    }
  }

  private hooksOf(store: KindStore): KindHooks {
    return this.hooks.get(kindKey(store.registration)) ?? {};
  }

  private commit(
    type: 'ADDED' | 'MODIFIED',
    store: KindStore,
    existing: StoredEntry | undefined,
    object: StoredObject,
  ): StoredEntry {
    const rv = ++this.rv;
    object.metadata.resourceVersion = String(rv);
    const entry = toEntry(object, rv);
    store.set(entry);
    if (existing) this.owners.remove(existing);
    this.owners.add(store, entry);
    store.record({ type, rv, entry, previousLabels: existing?.labels });
    this.hooksOf(store).committed?.(type, object);
    return entry;
  }

  private finishDeletion(
    store: KindStore,
    existing: StoredEntry,
    object: StoredObject,
    policy: PropagationPolicy = 'Background',
  ): StoredEntry {
    const rv = ++this.rv;
    object.metadata.resourceVersion = String(rv);
    const entry = toEntry(object, rv);
    store.delete(existing);
    this.owners.remove(existing);
    store.record({ type: 'DELETED', rv, entry, previousLabels: existing.labels });
    this.hooksOf(store).committed?.('DELETED', object);
    if (this.orphaning.delete(existing.uid)) this.orphan(existing.uid);
    else if (policy === 'Foreground') this.collectGarbage(existing.uid);
    else if (this.owners.hasDependents(existing.uid))
      setImmediate(() => this.collectGarbage(existing.uid));
    return entry;
  }

  /** Deletes dependents left without an existing owner; drops the dangling reference from the others. */
  private collectGarbage(ownerUid: string): void {
    if (this.owners.exists(ownerUid)) return;
    for (const { store, entry } of this.owners.dependents(ownerUid)) {
      if (entry.ownerUids.some((uid) => uid !== ownerUid && this.owners.exists(uid))) {
        this.dropOwnerReference(store, entry, ownerUid);
      } else if (!entry.deleting) {
        this.delete(store, entry.namespace, entry.name, { propagationPolicy: 'Background' });
      }
    }
  }

  private orphan(ownerUid: string): void {
    for (const { store, entry } of this.owners.dependents(ownerUid)) {
      this.dropOwnerReference(store, entry, ownerUid);
    }
  }

  private dropOwnerReference(store: KindStore, entry: StoredEntry, ownerUid: string): void {
    const object = parseEntry(entry);
    object.metadata.ownerReferences = object.metadata.ownerReferences?.filter(
      (r) => r.uid !== ownerUid,
    );
    if (object.metadata.ownerReferences?.length === 0) delete object.metadata.ownerReferences;
    this.update(store, entry.namespace, entry.name, object, 'all', false);
  }
}

/** Whether anything but metadata (and status, when it has its own endpoint) differs. */
function contentChanged(
  previous: StoredObject,
  next: StoredObject,
  statusSubresource: boolean,
): boolean {
  const strip = (object: StoredObject) => {
    const { metadata: _metadata, status, ...rest } = object;
    return statusSubresource ? rest : { ...rest, status };
  };
  return !deepEqual(strip(previous), strip(next));
}

/** Empty lists and maps of metadata are left out, as the real server's serialization does. */
function omitEmpty(object: StoredObject): void {
  const metadata = object.metadata;
  for (const key of ['finalizers', 'ownerReferences', 'labels', 'annotations'] as const) {
    const value = metadata[key];
    if (value !== undefined && Object.keys(value).length === 0) delete metadata[key];
  }
}
