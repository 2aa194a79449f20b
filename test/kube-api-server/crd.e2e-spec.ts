import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { FakeKubeApiServer } from '@platform/testing';
import { type Widget, failure } from './support.js';

const GADGETS = {
  group: 'gadgets.neutral.com',
  version: 'v1',
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: true,
};

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.gadgets.neutral.com' },
  spec: {
    group: 'gadgets.neutral.com',
    scope: 'Namespaced',
    names: {
      kind: 'Gadget',
      plural: 'gadgets',
      singular: 'gadget',
      shortNames: ['gd'],
      listKind: 'GadgetList',
    },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['target'],
                properties: {
                  target: { type: 'string', minLength: 1 },
                  mode: { type: 'string', enum: ['fast', 'safe'], default: 'safe' },
                  retention: {
                    type: 'object',
                    default: {},
                    properties: {
                      keepLast: { type: 'integer', minimum: 1, default: 7 },
                      keepDaily: { type: 'integer', minimum: 0, maximum: 30 },
                    },
                  },
                  extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  tags: { type: 'array', maxItems: 2, items: { type: 'string' } },
                },
              },
              status: { type: 'object', properties: { phase: { type: 'string' } } },
            },
          },
        },
      },
    ],
  },
};

describe('FakeKubeApiServer custom resource definitions', () => {
  let server: FakeKubeApiServer;
  let custom: CustomObjectsApi;

  // Sent as plain JSON: client-node's typed models would drop `default` and `x-kubernetes-*`.
  const createCrd = (body: object) =>
    fetch(`${server.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    server = await FakeKubeApiServer.start();
    custom = server.kubeConfig().makeApiClient(CustomObjectsApi);
  });

  afterAll(() => server.stop());

  it('serves a kind once its CRD is created, with the CRD marked Established', async () => {
    const before = await fetch(`${server.url}/apis/gadgets.neutral.com/v1`);
    expect(before.status).toBe(404);
    const response = await createCrd(CRD);
    expect(response.status).toBe(201);
    const created = (await response.json()) as typeof CRD & {
      status: { conditions: Array<{ type: string; status: string }> };
    };
    expect(created.status.conditions).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'Established', status: 'True' })]),
    );
    const resources = (await (await fetch(`${server.url}/apis/gadgets.neutral.com/v1`)).json()) as {
      resources: Array<{ name: string; shortNames?: string[] }>;
    };
    expect(resources.resources.map((resource) => resource.name)).toEqual([
      'gadgets',
      'gadgets/status',
    ]);
    expect(resources.resources[0].shortNames).toEqual(['gd']);
  });

  it('fills schema defaults and drops fields the schema does not know', async () => {
    const created = (await custom.createNamespacedCustomObject({
      ...GADGETS,
      namespace: 'team-a',
      body: {
        apiVersion: 'gadgets.neutral.com/v1',
        kind: 'Gadget',
        metadata: { name: 'defaults' },
        spec: { target: 'pvc-1', unknown: true, extra: { anything: { goes: 1 } } },
      },
    })) as Widget;
    expect(created.spec).toEqual({
      target: 'pvc-1',
      mode: 'safe',
      retention: { keepLast: 7 },
      extra: { anything: { goes: 1 } },
    });
    const updated = (await custom.patchNamespacedCustomObjectStatus({
      ...GADGETS,
      namespace: 'team-a',
      name: 'defaults',
      body: [{ op: 'add', path: '/status', value: { phase: 'Ready', junk: 1 } }],
    })) as Widget;
    expect(updated.status).toEqual({ phase: 'Ready' });
  });

  it('rejects values outside the schema with 422 Invalid and stores nothing', async () => {
    const rejected = await failure(
      custom.createNamespacedCustomObject({
        ...GADGETS,
        namespace: 'team-a',
        body: {
          apiVersion: 'gadgets.neutral.com/v1',
          kind: 'Gadget',
          metadata: { name: 'invalid' },
          spec: {
            mode: 'reckless',
            retention: { keepLast: 0, keepDaily: 31 },
            tags: ['a', 'b', 'c'],
          },
        },
      }),
    );
    expect(rejected.code).toBe(422);
    expect(rejected.body.reason).toBe('Invalid');
    expect(rejected.body.message).toBe(
      'Gadget.gadgets.neutral.com "invalid" is invalid: ' +
        [
          'spec.target: Required value',
          'spec.mode: Unsupported value: "reckless": supported values: "fast", "safe"',
          'spec.retention.keepLast: Invalid value: 0: spec.retention.keepLast in body should be greater than or equal to 1',
          'spec.retention.keepDaily: Invalid value: 31: spec.retention.keepDaily in body should be less than or equal to 30',
          'spec.tags: Too many: 3: must have at most 2 items',
        ].join(', '),
    );
    expect(server.get(GADGETS, 'team-a', 'invalid')).toBeUndefined();
  });

  it('refuses a CRD whose name does not match its names and group', async () => {
    const rejected = await createCrd({ ...CRD, metadata: { name: 'wrong.gadgets.neutral.com' } });
    expect(rejected.status).toBe(422);
    expect(await rejected.json()).toMatchObject({
      reason: 'Invalid',
      message:
        'CustomResourceDefinition.apiextensions.k8s.io "wrong.gadgets.neutral.com" is invalid: metadata.name: Invalid value: "wrong.gadgets.neutral.com": must be spec.names.plural+"."+spec.group',
    });
  });

  it('stops serving the kind and removes its objects when the CRD is deleted', async () => {
    await custom.deleteClusterCustomObject({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      plural: 'customresourcedefinitions',
      name: 'gadgets.gadgets.neutral.com',
    });
    const after = await fetch(
      `${server.url}/apis/gadgets.neutral.com/v1/namespaces/team-a/gadgets`,
    );
    expect(after.status).toBe(404);
    expect(() => server.get(GADGETS, 'team-a', 'defaults')).toThrow('not registered');
  });
});
