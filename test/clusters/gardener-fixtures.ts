import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CloudProfile,
  GardenerKinds,
  type GardenerProject,
  type Shoot,
} from '@platform/clusters';
import { type KindRef, KubeClient, type KubeObject } from '@platform/kube';
import { FakeKubeApiServer } from '@platform/testing';

const CRD_KIND: KindRef = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
};
const NAMESPACE_KIND: KindRef = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
};

const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/** The part of Gardener's Shoot schema a create must satisfy (the rest is kept as sent). */
const SHOOT_SPEC = {
  type: 'object',
  'x-kubernetes-preserve-unknown-fields': true,
  required: ['region', 'kubernetes', 'provider'],
  properties: {
    region: { type: 'string', minLength: 1 },
    kubernetes: {
      type: 'object',
      required: ['version'],
      'x-kubernetes-preserve-unknown-fields': true,
      properties: { version: { type: 'string' } },
    },
    provider: {
      type: 'object',
      required: ['type', 'workers'],
      'x-kubernetes-preserve-unknown-fields': true,
      properties: {
        type: { type: 'string', minLength: 1 },
        workers: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'machine', 'minimum', 'maximum'],
            'x-kubernetes-preserve-unknown-fields': true,
            properties: {
              name: { type: 'string' },
              machine: open,
              minimum: { type: 'integer', minimum: 0 },
              maximum: { type: 'integer', minimum: 0 },
            },
          },
        },
      },
    },
  },
};

/**
 * Minimal CRDs of Gardener's `core.gardener.cloud/v1beta1` kinds the platform uses (Gardener
 * serves them from its own API server; here a CRD of the same group, version and scope).
 */
function gardenerCrd(kind: KindRef, spec: object, status: boolean): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${kind.plural}.${kind.group}` },
    spec: {
      group: kind.group,
      scope: kind.namespaced ? 'Namespaced' : 'Cluster',
      names: { kind: kind.kind, plural: kind.plural, singular: kind.kind.toLowerCase() },
      versions: [
        {
          name: kind.version,
          served: true,
          storage: true,
          ...(status ? { subresources: { status: {} } } : {}),
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec, ...(status ? { status: open } : {}) },
            },
          },
        },
      ],
    },
  };
}

/** A cloud profile of the fake garden: two regions (one zone lacks a type), three versions. */
export function cloudProfile(
  name: string,
  overrides: Partial<CloudProfile['spec']> = {},
): CloudProfile {
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'CloudProfile',
    metadata: { name },
    spec: {
      type: 'openstack',
      kubernetes: {
        versions: [
          { version: '1.31.2', classification: 'supported' },
          {
            version: '1.30.6',
            classification: 'deprecated',
            expirationDate: '2099-01-01T00:00:00Z',
          },
          {
            version: '1.29.9',
            classification: 'deprecated',
            expirationDate: '2020-01-01T00:00:00Z',
          },
        ],
      },
      regions: [
        {
          name: 'eu-de-1',
          zones: [{ name: 'eu-de-1a', unavailableMachineTypes: ['g1.gpu'] }, { name: 'eu-de-1b' }],
        },
        { name: 'eu-nl-1', zones: [{ name: 'eu-nl-1a', unavailableMachineTypes: ['g1.gpu'] }] },
      ],
      machineTypes: [
        {
          name: 'm1.large',
          cpu: '4',
          memory: '16Gi',
          gpu: '0',
          architecture: 'amd64',
          usable: true,
        },
        {
          name: 'm1.xlarge',
          cpu: '8',
          memory: '32Gi',
          gpu: '0',
          architecture: 'amd64',
          usable: true,
        },
        { name: 'g1.gpu', cpu: '8', memory: '64Gi', gpu: '1', architecture: 'amd64', usable: true },
        { name: 'm0.legacy', cpu: '1', memory: '2Gi', architecture: 'amd64', usable: false },
      ],
      ...overrides,
    },
  };
}

/**
 * A fake garden cluster: the Kubernetes API with Gardener's kinds, a kubeconfig file for the
 * platform, and Gardener's project controller played by a poll: a new Project gets its namespace
 * (labelled as Gardener labels it) and phase Ready, unless `holdProjects` is set.
 */
export class FakeGarden {
  /** While true, new Projects stay without a phase (Gardener lagging). */
  holdProjects = false;
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    readonly server: FakeKubeApiServer,
    private readonly directory: string,
  ) {}

  static async start(): Promise<FakeGarden> {
    const server = await FakeKubeApiServer.start();
    const client = KubeClient.fromKubeConfig(server.kubeConfig());
    await client.create(CRD_KIND, gardenerCrd(GardenerKinds.Project, open, true));
    await client.create(CRD_KIND, gardenerCrd(GardenerKinds.Shoot, SHOOT_SPEC, true));
    await client.create(CRD_KIND, gardenerCrd(GardenerKinds.CloudProfile, open, false));
    const garden = new FakeGarden(server, mkdtempSync(join(tmpdir(), 'garden-')));
    writeFileSync(garden.kubeconfigPath, server.kubeconfigYaml());
    garden.put(GardenerKinds.CloudProfile, cloudProfile('openstack-eu'));
    garden.timer = setInterval(() => garden.reconcileProjects(), 20);
    return garden;
  }

  /** The file GARDEN_KUBECONFIG names. */
  get kubeconfigPath(): string {
    return join(this.directory, 'kubeconfig');
  }

  put<T extends object>(kind: KindRef, object: T): T {
    return this.server.put(kind, object);
  }

  projects(): GardenerProject[] {
    return this.server.list<GardenerProject>(GardenerKinds.Project);
  }

  shoots(namespace?: string): Shoot[] {
    return this.server.list<Shoot>(GardenerKinds.Shoot, namespace);
  }

  shoot(namespace: string, name: string): Shoot | undefined {
    return this.server.get<Shoot>(GardenerKinds.Shoot, namespace, name);
  }

  /** Sets a Shoot's status as gardenlet would report it. */
  report(namespace: string, name: string, status: Shoot['status']): void {
    const shoot = this.shoot(namespace, name);
    if (!shoot) throw new Error(`no Shoot ${namespace}/${name}`);
    this.put(GardenerKinds.Shoot, { ...shoot, status });
  }

  /** Write requests of a kind (Project, Shoot, ...), as `METHOD name`, in order. */
  writes(kind: string): string[] {
    return this.server.requests
      .filter((r) => r.kind === kind && ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method))
      .map((r) => `${r.method} ${r.name ?? ''}`.trim());
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.server.stop();
    rmSync(this.directory, { recursive: true, force: true });
  }

  private reconcileProjects(): void {
    if (this.holdProjects) return;
    for (const project of this.projects()) {
      if (project.status?.phase || project.metadata.deletionTimestamp) continue;
      const name = project.metadata.name!;
      const namespace = project.spec?.namespace ?? `garden-${name}`;
      if (!this.server.get(NAMESPACE_KIND, undefined, namespace)) {
        this.put(NAMESPACE_KIND, {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: {
            name: namespace,
            labels: { 'project.gardener.cloud/name': name, 'gardener.cloud/role': 'project' },
          },
        });
      }
      this.put(GardenerKinds.Project, { ...project, status: { phase: 'Ready' } });
    }
  }
}
