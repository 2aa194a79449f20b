import { describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { FakeClock } from '@platform/testing';
import { CoreKinds, type KindRef, type KubeObject, objectKey } from './kinds.js';
import { KubeApiError } from './kube-api-error.js';
import type { KubeClient } from './kube-client.js';
import {
  type Condition,
  ensureObject,
  ownerReference,
  setCondition,
  writeStatus,
} from './object-helpers.js';
import { ObjectStore } from './object-store.js';
import type { ReconcileContext } from './reconciler.js';

const BackupKind: KindRef = {
  group: 'backups.k8s.neutral.com',
  version: 'v1',
  kind: 'VolumeBackup',
  plural: 'volumebackups',
  namespaced: true,
};

/** An in-memory stand-in for the API server that records what would have been written. */
class RecordingClient {
  readonly objects = new Map<string, KubeObject>();
  readonly writes: Array<{ verb: string; name: string; body: unknown }> = [];
  reads = 0;
  private version = 100;

  seed(object: KubeObject): KubeObject {
    const stored = structuredClone(object);
    stored.metadata.resourceVersion = String((this.version += 1));
    this.objects.set(objectKey(stored), stored);
    return structuredClone(stored);
  }

  async get(_kind: KindRef, namespace: string | undefined, name: string) {
    this.reads += 1;
    const object = this.objects.get(namespace ? `${namespace}/${name}` : name);
    return object ? structuredClone(object) : undefined;
  }

  async create(_kind: KindRef, object: KubeObject) {
    this.writes.push({ verb: 'create', name: object.metadata.name!, body: object });
    if (this.objects.has(objectKey(object))) throw new KubeApiError(409, 'exists', 'AlreadyExists');
    return this.seed(object);
  }

  async mergePatch(_kind: KindRef, namespace: string | undefined, name: string, patch: object) {
    this.writes.push({ verb: 'patch', name, body: patch });
    const current = this.objects.get(`${namespace}/${name}`)!;
    return this.seed(merge(current, patch) as KubeObject);
  }

  async mergePatchStatus(
    _kind: KindRef,
    namespace: string | undefined,
    name: string,
    status: object,
  ) {
    this.writes.push({ verb: 'patch-status', name, body: status });
    const current = this.objects.get(`${namespace}/${name}`)!;
    return this.seed(merge(current, { status }) as KubeObject);
  }
}

function merge(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = merge(result[key], value);
  }
  return result;
}

function contextWith(
  client: RecordingClient,
  caches: Map<KindRef, ObjectStore<KubeObject>> = new Map(),
) {
  const context: ReconcileContext = {
    client: client as unknown as KubeClient,
    clock: new FakeClock('2030-01-01T00:00:00Z'),
    logger: new Logger('test'),
    cache: <T extends KubeObject>(kind: KindRef) => {
      const cache = caches.get(kind);
      if (!cache) throw new Error('not watched');
      return cache as unknown as ObjectStore<T>;
    },
  };
  return context;
}

function desiredClaim(size = '5Gi'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'data-cache', namespace: 'team-a', labels: { app: 'restic' } },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } } },
  };
}

describe('objectKey and ownerReference', () => {
  it('keys namespaced objects by namespace and name, cluster-scoped ones by name', () => {
    expect(
      objectKey({ apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'a', name: 'b' } }),
    ).toBe('a/b');
    expect(objectKey({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'b' } })).toBe('b');
  });

  it('makes a controller reference that blocks the owner deletion', () => {
    const owner: KubeObject = {
      apiVersion: 'backups.k8s.neutral.com/v1',
      kind: 'VolumeBackup',
      metadata: { name: 'nightly', namespace: 'team-a', uid: 'uid-1' },
    };
    expect(ownerReference(owner)).toEqual({
      apiVersion: 'backups.k8s.neutral.com/v1',
      kind: 'VolumeBackup',
      name: 'nightly',
      uid: 'uid-1',
      controller: true,
      blockOwnerDeletion: true,
    });
    expect(() => ownerReference({ ...owner, metadata: { name: 'x' } })).toThrow('uid');
  });
});

describe('setCondition', () => {
  const first = new Date('2030-01-01T10:00:00.123Z');
  const later = new Date('2030-01-01T11:00:00Z');

  it('adds a condition stamped with the time of its transition', () => {
    expect(
      setCondition(undefined, { type: 'Ready', status: 'True', reason: 'Scheduled' }, first),
    ).toEqual([
      {
        type: 'Ready',
        status: 'True',
        reason: 'Scheduled',
        lastTransitionTime: '2030-01-01T10:00:00Z',
      },
    ]);
  });

  it('keeps lastTransitionTime while the status stays, updating reason and message', () => {
    const conditions = setCondition(
      undefined,
      { type: 'Ready', status: 'False', reason: 'A' },
      first,
    );
    const next = setCondition(
      conditions,
      { type: 'Ready', status: 'False', reason: 'B', message: 'm' },
      later,
    );
    expect(next).toEqual([
      {
        type: 'Ready',
        status: 'False',
        reason: 'B',
        message: 'm',
        lastTransitionTime: '2030-01-01T10:00:00Z',
      },
    ]);
  });

  it('moves lastTransitionTime when the status changes, leaving other conditions in place', () => {
    const conditions: Condition[] = [
      { type: 'Ready', status: 'False', lastTransitionTime: '2030-01-01T09:00:00Z' },
      { type: 'Suspended', status: 'False', lastTransitionTime: '2030-01-01T09:00:00Z' },
    ];
    const next = setCondition(conditions, { type: 'Ready', status: 'True' }, later);
    expect(next).toEqual([
      { type: 'Ready', status: 'True', lastTransitionTime: '2030-01-01T11:00:00Z' },
      { type: 'Suspended', status: 'False', lastTransitionTime: '2030-01-01T09:00:00Z' },
    ]);
    expect(conditions[0]!.status).toBe('False');
  });

  it('gives an equal list when the same condition is set again', () => {
    const conditions = setCondition(
      undefined,
      { type: 'Ready', status: 'True', reason: 'Ok' },
      first,
    );
    expect(
      setCondition(conditions, { type: 'Ready', status: 'True', reason: 'Ok' }, later),
    ).toEqual(conditions);
  });
});

describe('ensureObject', () => {
  it('creates the object when it is missing', async () => {
    const client = new RecordingClient();
    const live = await ensureObject(
      contextWith(client),
      CoreKinds.PersistentVolumeClaim,
      desiredClaim(),
    );
    expect(client.writes.map((w) => w.verb)).toEqual(['create']);
    expect(live.metadata.resourceVersion).toBeDefined();
  });

  it('writes nothing when every field it sets is already so, server-filled fields aside', async () => {
    const client = new RecordingClient();
    client.seed({
      ...desiredClaim(),
      metadata: {
        ...desiredClaim().metadata,
        uid: 'u1',
        labels: { app: 'restic', extra: 'kept' },
        annotations: { 'pv.kubernetes.io/bind-completed': 'yes' },
      },
      spec: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '5120Mi' } },
        storageClassName: 'standard',
        volumeMode: 'Filesystem',
      },
      status: { phase: 'Bound' },
    });
    const live = await ensureObject(
      contextWith(client),
      CoreKinds.PersistentVolumeClaim,
      desiredClaim(),
    );
    expect(client.writes).toEqual([]);
    expect(live.status).toEqual({ phase: 'Bound' });
  });

  it('merge-patches only what it sets when a field differs', async () => {
    const client = new RecordingClient();
    client.seed({ ...desiredClaim(), status: { phase: 'Bound' } });
    await ensureObject(contextWith(client), CoreKinds.PersistentVolumeClaim, desiredClaim('10Gi'));
    expect(client.writes).toEqual([
      {
        verb: 'patch',
        name: 'data-cache',
        body: {
          metadata: { labels: { app: 'restic' } },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } },
        },
      },
    ]);
  });

  it('trusts an up-to-date cache without reading, and reads the server when the cache differs', async () => {
    const client = new RecordingClient();
    const stored = client.seed(desiredClaim());
    const cache = new ObjectStore<KubeObject>();
    cache.put(stored);
    const context = contextWith(client, new Map([[CoreKinds.PersistentVolumeClaim, cache]]));
    await ensureObject(context, CoreKinds.PersistentVolumeClaim, desiredClaim());
    expect(client.reads).toBe(0);
    // The server already has what is desired, the cache lags behind: no write.
    client.seed(desiredClaim('10Gi'));
    await ensureObject(context, CoreKinds.PersistentVolumeClaim, desiredClaim('10Gi'));
    expect(client.reads).toBe(1);
    expect(client.writes).toEqual([]);
  });

  it('compares with what is there when the create races another writer', async () => {
    const client = new RecordingClient();
    const get = client.get.bind(client);
    let calls = 0;
    client.get = async (...args) => (calls++ === 0 ? undefined : get(...args));
    client.seed(desiredClaim());
    await ensureObject(contextWith(client), CoreKinds.PersistentVolumeClaim, desiredClaim());
    expect(client.writes.map((w) => w.verb)).toEqual(['create']);
  });
});

describe('writeStatus', () => {
  function backup(status?: object): KubeObject {
    return {
      apiVersion: 'backups.k8s.neutral.com/v1',
      kind: 'VolumeBackup',
      metadata: { name: 'nightly', namespace: 'team-a', generation: 3 },
      spec: {},
      ...(status ? { status } : {}),
    };
  }

  it('patches /status with observedGeneration when the status differs', async () => {
    const client = new RecordingClient();
    const object = client.seed(backup({ phase: 'Pending' }));
    expect(await writeStatus(contextWith(client), BackupKind, object, { phase: 'Running' })).toBe(
      true,
    );
    expect(client.writes).toEqual([
      { verb: 'patch-status', name: 'nightly', body: { phase: 'Running', observedGeneration: 3 } },
    ]);
    expect(object.status).toEqual({ phase: 'Running', observedGeneration: 3 });
  });

  it('writes nothing when the live status already says so', async () => {
    const client = new RecordingClient();
    const object = client.seed(
      backup({ phase: 'Running', observedGeneration: 3, lastSnapshot: 'abc' }),
    );
    expect(await writeStatus(contextWith(client), BackupKind, object, { phase: 'Running' })).toBe(
      false,
    );
    expect(client.writes).toEqual([]);
    expect(client.reads).toBe(0);
  });

  it('writes when only observedGeneration is behind', async () => {
    const client = new RecordingClient();
    const object = client.seed(backup({ phase: 'Running', observedGeneration: 2 }));
    expect(await writeStatus(contextWith(client), BackupKind, object, { phase: 'Running' })).toBe(
      true,
    );
  });

  it('does not write when the server already has the status its stale copy lacks', async () => {
    const client = new RecordingClient();
    const stale = client.seed(backup({ phase: 'Pending' }));
    client.seed(backup({ phase: 'Running', observedGeneration: 3 }));
    expect(await writeStatus(contextWith(client), BackupKind, stale, { phase: 'Running' })).toBe(
      false,
    );
    expect(client.writes).toEqual([]);
  });
});
