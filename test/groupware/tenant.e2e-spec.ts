import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CLAIMED_BY_LABEL, GROUPWARE_FINALIZER, POOL_LABEL } from '@platform/groupware';
import { KubeClient } from '@platform/kube';
import { eventually, type FakeKubeApiServer } from '@platform/testing';
import {
  createPool,
  fillPool,
  getGroupware,
  getInstance,
  getPool,
  GROUPWARE,
  INSTANCE,
  markReady,
  POOL,
  poolInstances,
  reconciles,
  setInstancePhase,
  unclaimed,
} from './fleet-support.js';
import {
  type GroupwareOperator,
  groupwareObject,
  OPERATOR_CLOCK_START,
  RESYNC_PERIOD_SECONDS,
  startGroupwareApiServer,
  startGroupwareOperator,
  WITHOUT_INSTANCE_RECONCILER,
} from './support.js';

describe('Groupware: claiming a pooled instance or creating one, status and deletion', () => {
  let server: FakeKubeApiServer;
  let operator: GroupwareOperator;
  let api: KubeClient;

  beforeAll(async () => {
    server = await startGroupwareApiServer();
    api = KubeClient.fromKubeConfig(server.kubeConfig());
    operator = await startGroupwareOperator(server, { reconcilers: WITHOUT_INSTANCE_RECONCILER });
    await createPool(
      api,
      'standard-eu',
      { profile: 'standard', size: 2, namespace: 'pool-eu', template: { version: '29' } },
      { region: 'eu', tier: 'standard' },
    );
    await fillPool(server, 'standard-eu', 2);
  });

  afterAll(async () => {
    await operator?.close();
    await server?.stop();
  });

  const createGroupware = (namespace: string, name: string, spec: Record<string, unknown>) =>
    api.create(GROUPWARE, groupwareObject('Groupware', name, spec, namespace));
  const bound = (namespace: string, name: string) =>
    eventually(
      () => getGroupware(server, namespace, name),
      (groupware) => groupware?.status?.instanceRef !== undefined,
      `${namespace}/${name} bound to an instance`,
    );

  describe('claiming', () => {
    it('claims the oldest Ready instance of a matching pool, applies its apps, and the pool refills', async () => {
      const [oldest] = unclaimed(poolInstances(server, 'standard-eu')).sort((a, b) =>
        String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp)),
      );
      await createGroupware('tenant-a', 'mail', {
        profile: 'standard',
        poolSelector: { matchLabels: { region: 'eu' } },
        apps: { calendar: { enabled: true }, deck: { enabled: false } },
      });
      const groupware = await bound('tenant-a', 'mail');
      const name = groupware!.status!.instanceRef!.name;
      expect(name).toMatch(/^standard-eu-[a-z0-9]{5}$/);
      const instance = getInstance(server, 'pool-eu', name)!;
      expect(instance.metadata.labels).toEqual({
        [POOL_LABEL]: 'standard-eu',
        [CLAIMED_BY_LABEL]: 'tenant-a.mail',
      });
      // The claimed instance serves a tenant: it no longer belongs to the pool.
      expect(instance.metadata.ownerReferences).toBeUndefined();
      expect(instance.spec!.apps).toMatchObject({
        calendar: { enabled: true },
        deck: { enabled: false },
      });
      expect(groupware!.metadata.finalizers).toEqual([GROUPWARE_FINALIZER]);
      expect(groupware!.status).toEqual({
        phase: 'Ready',
        observedGeneration: 1,
        instanceRef: { namespace: 'pool-eu', name },
        url: `https://${name}.groupware.test`,
        claimedFromPool: 'standard-eu',
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'InstanceReady',
            message: `instance pool-eu/${name} is Ready`,
            lastTransitionTime: OPERATOR_CLOCK_START,
          },
        ],
      });
      expect(name).toBe(oldest.metadata.name);
      expect(getInstance(server, 'tenant-a', 'mail')).toBeUndefined();

      await eventually(
        () => unclaimed(poolInstances(server, 'standard-eu')).length === 2,
        'the pool refilled',
      );
      await eventually(() => getPool(server, 'standard-eu')?.status?.claimed === 1, 'claimed 1');
      expect(getPool(server, 'standard-eu')!.status).toMatchObject({
        ready: 1,
        claimed: 1,
        creating: 1,
      });
    });

    it('keeps applying its apps to the claimed instance', async () => {
      await api.mergePatch(GROUPWARE, 'tenant-a', 'mail', {
        spec: { apps: { deck: { enabled: true } } },
      });
      const ref = getGroupware(server, 'tenant-a', 'mail')!.status!.instanceRef!;
      await eventually(
        () => getInstance(server, ref.namespace, ref.name)?.spec?.apps?.deck?.enabled === true,
        'deck enabled on the instance',
      );
      expect(getInstance(server, ref.namespace, ref.name)!.spec!.apps).toMatchObject({
        calendar: { enabled: true },
        deck: { enabled: true },
      });
    });

    it('mirrors the claimed instance: url and phase follow it', async () => {
      const ref = getGroupware(server, 'tenant-a', 'mail')!.status!.instanceRef!;
      setInstancePhase(server, ref.namespace!, ref.name!, 'Updating', {
        url: 'https://mail.tenant-a.test',
      });
      await eventually(
        () =>
          getGroupware(server, 'tenant-a', 'mail')?.status?.url === 'https://mail.tenant-a.test',
        'the new url',
      );
      // An instance being updated still serves.
      expect(getGroupware(server, 'tenant-a', 'mail')!.status!.phase).toBe('Ready');
    });

    it('does not claim from pools whose labels, profile or version do not match, or without a poolSelector', async () => {
      const cases: Array<[string, Record<string, unknown>]> = [
        ['other-labels', { profile: 'standard', poolSelector: { matchLabels: { region: 'us' } } }],
        ['other-profile', { profile: 'premium', poolSelector: { matchLabels: { region: 'eu' } } }],
        [
          'other-version',
          { profile: 'standard', version: '30', poolSelector: { matchLabels: { region: 'eu' } } },
        ],
        ['no-selector', { profile: 'standard' }],
      ];
      for (const [name, spec] of cases) await createGroupware('tenant-b', name, spec);
      for (const [name] of cases) {
        const groupware = await bound('tenant-b', name);
        expect(groupware!.status!.instanceRef).toEqual({ namespace: 'tenant-b', name });
        expect(groupware!.status!.claimedFromPool).toBeUndefined();
      }
      expect(getPool(server, 'standard-eu')!.status!.claimed).toBe(1);
    });

    it('claims an instance of the requested version', async () => {
      await createGroupware('tenant-b', 'by-major', {
        profile: 'standard',
        version: '29',
        poolSelector: { matchLabels: { tier: 'standard' } },
      });
      const groupware = await bound('tenant-b', 'by-major');
      expect(groupware!.status!.claimedFromPool).toBe('standard-eu');
    });
  });

  describe('creating its own instance', () => {
    it('creates an instance named after it from profile, version and apps, and mirrors its phases', async () => {
      const created = await createGroupware('tenant-c', 'files', {
        profile: 'premium',
        version: '29.0.16',
        apps: { calendar: { enabled: true } },
      });
      const groupware = await bound('tenant-c', 'files');
      const instance = getInstance(server, 'tenant-c', 'files')!;
      expect(instance.metadata.ownerReferences).toEqual([
        {
          apiVersion: 'k8s.neutral.com/v1alpha1',
          kind: 'Groupware',
          name: 'files',
          uid: created.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      expect(instance.spec).toMatchObject({
        profile: 'premium',
        version: '29.0.16',
        apps: { calendar: { enabled: true } },
      });
      expect(groupware!.status).toEqual({
        phase: 'Pending',
        observedGeneration: 1,
        instanceRef: { namespace: 'tenant-c', name: 'files' },
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'InstanceNotReady',
            message: 'instance tenant-c/files is Pending',
            lastTransitionTime: OPERATOR_CLOCK_START,
          },
        ],
      });

      setInstancePhase(server, 'tenant-c', 'files', 'Creating');
      await eventually(
        () => getGroupware(server, 'tenant-c', 'files')?.status?.phase === 'Creating',
        'Creating',
      );
      markReady(server, instance);
      await eventually(
        () => getGroupware(server, 'tenant-c', 'files')?.status?.phase === 'Ready',
        'Ready',
      );
      expect(getGroupware(server, 'tenant-c', 'files')!.status).toMatchObject({
        url: 'https://files.groupware.test',
        conditions: [{ type: 'Ready', status: 'True', reason: 'InstanceReady' }],
      });
    });

    it('reports Failed with the instance failure', async () => {
      setInstancePhase(server, 'tenant-c', 'files', 'Failed', {
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'ReleaseFailed',
            message: 'install retries exhausted',
            lastTransitionTime: OPERATOR_CLOCK_START,
          },
        ],
      });
      await eventually(
        () => getGroupware(server, 'tenant-c', 'files')?.status?.phase === 'Failed',
        'Failed',
      );
      expect(getGroupware(server, 'tenant-c', 'files')!.status!.conditions).toEqual([
        {
          type: 'Ready',
          status: 'False',
          reason: 'InstanceFailed',
          message: 'instance tenant-c/files failed: ReleaseFailed: install retries exhausted',
          lastTransitionTime: OPERATOR_CLOCK_START,
        },
      ]);
    });

    it('keeps the created instance as its spec says: a version change reaches it', async () => {
      await api.mergePatch(GROUPWARE, 'tenant-c', 'files', { spec: { version: '30' } });
      await eventually(
        () => getInstance(server, 'tenant-c', 'files')?.spec?.version === '30',
        'version 30 on the instance',
      );
    });

    it('reports Failed when an instance it does not control has its name', async () => {
      await api.create(
        INSTANCE,
        groupwareObject('GroupwareInstance', 'taken', { profile: 'premium' }, 'tenant-c'),
      );
      await createGroupware('tenant-c', 'taken', { profile: 'premium' });
      const groupware = await eventually(
        () => getGroupware(server, 'tenant-c', 'taken'),
        (object) => object?.status?.phase === 'Failed',
        'Failed',
      );
      expect(groupware!.status!.conditions).toEqual([
        {
          type: 'Ready',
          status: 'False',
          reason: 'InstanceNameTaken',
          message: 'a GroupwareInstance tenant-c/taken exists that this Groupware does not control',
          lastTransitionTime: OPERATOR_CLOCK_START,
        },
      ]);
      expect(getInstance(server, 'tenant-c', 'taken')!.metadata.ownerReferences).toBeUndefined();
    });
  });

  describe('deletion', () => {
    it('deletes a claimed instance rather than returning it to the pool, which stays at size', async () => {
      const ref = getGroupware(server, 'tenant-b', 'by-major')!.status!.instanceRef!;
      await api.delete(GROUPWARE, 'tenant-b', 'by-major');
      await eventually(() => getGroupware(server, 'tenant-b', 'by-major') === undefined, 'gone');
      await eventually(() => getInstance(server, ref.namespace, ref.name) === undefined, 'deleted');
      await fillPool(server, 'standard-eu', 2);
      expect(unclaimed(poolInstances(server, 'standard-eu'))).toHaveLength(2);
    });

    it('deletes the instance it created', async () => {
      await api.delete(GROUPWARE, 'tenant-c', 'files');
      await eventually(() => getGroupware(server, 'tenant-c', 'files') === undefined, 'gone');
      expect(getInstance(server, 'tenant-c', 'files')).toBeUndefined();
    });

    it('keeps a claimed instance when its pool is deleted', async () => {
      await createPool(
        api,
        'short-lived',
        { profile: 'basic', size: 1, namespace: 'pool-x' },
        {
          lane: 'short',
        },
      );
      const [warm] = await fillPool(server, 'short-lived', 1);
      await createGroupware('tenant-d', 'kept', {
        profile: 'basic',
        poolSelector: { matchLabels: { lane: 'short' } },
      });
      await bound('tenant-d', 'kept');
      expect(getGroupware(server, 'tenant-d', 'kept')!.status!.instanceRef!.name).toBe(
        warm.metadata.name,
      );
      const refill = await eventually(
        () => unclaimed(poolInstances(server, 'short-lived')),
        (list) => list.length === 1,
        'the refill',
      );
      await api.delete(POOL, undefined, 'short-lived');
      await eventually(
        () => getInstance(server, 'pool-x', refill[0].metadata.name!) === undefined,
        'the unclaimed instance collected with its pool',
      );
      expect(getInstance(server, 'pool-x', warm.metadata.name!)).toBeDefined();
    });
  });

  it('writes nothing when a resync finds every Groupware bound and mirrored', async () => {
    await operator.settled();
    server.clearRequests();
    const before = await reconciles(operator, 'Groupware');
    await operator.advance({ seconds: RESYNC_PERIOD_SECONDS + 1 });
    expect(await reconciles(operator, 'Groupware')).toBeGreaterThan(before);
    expect(
      server.requests
        .filter((r) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method))
        .map((r) => `${r.method} ${r.kind} ${r.namespace}/${r.name}/${r.subresource}`),
    ).toEqual([]);
  });
});
