import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { groupwareCrds } from '@platform/groupware';
import { FakeKubeApiServer } from '@platform/testing';
import { parse } from 'yaml';

/*
 * The chart's CRDs installed into the fake API server, then the chart's examples applied as
 * kubectl would: each is stored with its defaults, and objects the schemas forbid are refused
 * with 422 Invalid.
 */

const EXAMPLES = fileURLToPath(
  new URL('../../charts/groupware-operator/examples/', import.meta.url),
);

interface Example {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec: Record<string, unknown>;
}

const examples = readdirSync(EXAMPLES)
  .filter((file) => file.endsWith('.yaml'))
  .sort()
  .map((file) => parse(readFileSync(`${EXAMPLES}${file}`, 'utf8')) as Example);

const pluralOf = (kind: string) =>
  groupwareCrds().find((crd) => crd.spec.names.kind === kind)!.spec.names.plural;

describe('groupware CRDs on the API server', () => {
  let server: FakeKubeApiServer;

  const collection = (kind: string, namespace?: string) =>
    `${server.url}/apis/k8s.neutral.com/v1alpha1/${namespace ? `namespaces/${namespace}/` : ''}${pluralOf(kind)}`;

  // Sent as plain JSON: client-node's typed models would drop `default` and `x-kubernetes-*`.
  const post = (url: string, body: object) =>
    fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });

  const create = (object: Example) =>
    post(collection(object.kind, object.metadata.namespace), object);

  beforeAll(async () => {
    server = await FakeKubeApiServer.start();
    for (const crd of groupwareCrds()) {
      const response = await post(
        `${server.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`,
        crd,
      );
      expect(response.status).toBe(201);
    }
  });

  afterAll(async () => {
    await server.stop();
  });

  it('serves the six kinds with their scopes, short names and status subresources', async () => {
    const response = await fetch(`${server.url}/apis/k8s.neutral.com/v1alpha1`);
    const { resources } = (await response.json()) as {
      resources: Array<{ name: string; kind: string; namespaced: boolean; shortNames?: string[] }>;
    };
    const kinds = resources
      .filter((resource) => !resource.name.includes('/'))
      .map(({ kind, namespaced, shortNames }) => [kind, namespaced, shortNames])
      .sort();
    expect(kinds).toEqual([
      ['Groupware', true, ['gw']],
      ['GroupwareInstance', true, ['gwi']],
      ['GroupwarePool', false, ['gwpool']],
      ['GroupwareProfile', false, ['gwprofile']],
      ['RecordingServer', false, ['rs']],
      ['SignalingServer', false, ['ss']],
    ]);
    expect(resources.filter((resource) => resource.name.endsWith('/status'))).toHaveLength(6);
  });

  it('accepts an example of each kind', async () => {
    expect(examples.map((example) => example.kind).sort()).toEqual([
      'Groupware',
      'GroupwareInstance',
      'GroupwarePool',
      'GroupwareProfile',
      'RecordingServer',
      'SignalingServer',
    ]);
    for (const example of examples) {
      const response = await create(example);
      expect({ kind: example.kind, status: response.status }).toEqual({
        kind: example.kind,
        status: 201,
      });
    }
  });

  it('stores an instance with the schema defaults filled in', async () => {
    const response = await create({
      apiVersion: 'k8s.neutral.com/v1alpha1',
      kind: 'GroupwareInstance',
      metadata: { name: 'minimal', namespace: 'groupware' },
      spec: {},
    });
    expect(response.status).toBe(201);
    const { spec } = (await response.json()) as Example;
    expect(spec).toEqual({
      version: '29',
      database: {
        type: 'postgresql',
        managed: false,
        port: 5432,
        name: 'nextcloud',
        user: 'nextcloud',
      },
      backups: { data: { enabled: false, schedule: '0 3 * * *', deleteOnCleanup: false } },
    });
  });

  it.each([
    ['GroupwareInstance', 'groupware', { database: { type: 'oracle' } }, 'spec.database.type'],
    ['GroupwareInstance', 'groupware', { version: 'latest' }, 'spec.version'],
    ['GroupwareInstance', 'groupware', { replicas: 0 }, 'spec.replicas'],
    ['GroupwareInstance', 'groupware', { apps: { custom: [{ enabled: true }] } }, 'appId'],
    ['GroupwarePool', undefined, { namespace: 'pool', size: 51 }, 'spec.size'],
    ['GroupwarePool', undefined, { size: 2 }, 'spec.namespace'],
    ['Groupware', 'tenant-a', { poolSelector: {} }, 'spec.profile'],
    ['SignalingServer', undefined, { url: 'https://s', secretRef: { name: 's' } }, 'namespace'],
    ['RecordingServer', undefined, { url: 'https://r', verifyTls: 'yes' }, 'spec.secretRef'],
    ['GroupwareProfile', undefined, { defaults: { replicaCount: 'two' } }, 'replicaCount'],
  ] as const)(
    'refuses a %s breaking its schema with 422 (%#)',
    async (kind, namespace, spec, field) => {
      const response = await create({
        apiVersion: 'k8s.neutral.com/v1alpha1',
        kind,
        metadata: { name: `invalid-${kind.toLowerCase()}`, ...(namespace ? { namespace } : {}) },
        spec,
      });
      expect(response.status).toBe(422);
      const status = (await response.json()) as { reason: string; message: string };
      expect(status.reason).toBe('Invalid');
      expect(status.message).toContain(field);
    },
  );

  it('refuses an object without a spec', async () => {
    const response = await post(collection('GroupwareProfile'), {
      apiVersion: 'k8s.neutral.com/v1alpha1',
      kind: 'GroupwareProfile',
      metadata: { name: 'empty' },
    });
    expect(response.status).toBe(422);
  });
});
