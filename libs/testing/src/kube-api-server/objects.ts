import type { Labels } from './selectors.js';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  [key: string]: unknown;
}

/** Any object the server stores; the parsed form is always a private copy. */
export interface StoredObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: unknown;
  status?: unknown;
  [key: string]: unknown;
}

/**
 * What the server keeps per object: its serialized form (served and streamed without copying,
 * parsed into a fresh copy whenever someone needs an object) plus what the indexes need.
 */
export interface StoredEntry {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly rv: number;
  readonly json: string;
  readonly labels: Labels;
  readonly ownerUids: readonly string[];
  readonly finalizers: number;
  readonly deleting: boolean;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoredEvent {
  readonly type: WatchEventType;
  readonly rv: number;
  readonly entry: StoredEntry;
  /** Labels before the change, so a label-filtered watch can see objects enter and leave. */
  readonly previousLabels: Labels;
}

export function parseEntry(entry: StoredEntry): StoredObject {
  return JSON.parse(entry.json) as StoredObject;
}

export function toEntry(object: StoredObject, rv: number): StoredEntry {
  const metadata = object.metadata;
  return {
    namespace: metadata.namespace ?? '',
    name: metadata.name!,
    uid: metadata.uid!,
    rv,
    json: JSON.stringify(object),
    labels: metadata.labels,
    ownerUids: (metadata.ownerReferences ?? []).map((reference) => reference.uid),
    finalizers: metadata.finalizers?.length ?? 0,
    deleting: metadata.deletionTimestamp !== undefined,
  };
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** RFC 3339 with second precision, as the API server writes timestamps. */
export function timestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
