import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KindRef, KubeClient, type KubeObject } from '@platform/kube';
import { type HostResolver, OUTBOUND_RESOLVER } from '@platform/outbound';
import { FakeKubeApiServer, type TestApp } from '@platform/testing';
import { APP_LABELS, appNamespace } from '@platform/webhooks';
import { DataSource } from 'typeorm';
import { type ApiTestAppOptions, createApiTestApp } from '../support/api-app.js';

const CRD_KIND: KindRef = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
};

/** Flux's HelmRelease, as much of it as apps use: the spec is kept as written. */
const HELM_RELEASE_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'helmreleases.helm.toolkit.fluxcd.io' },
  spec: {
    group: 'helm.toolkit.fluxcd.io',
    scope: 'Namespaced',
    names: {
      kind: 'HelmRelease',
      plural: 'helmreleases',
      singular: 'helmrelease',
      listKind: 'HelmReleaseList',
      shortNames: ['hr'],
    },
    versions: [
      {
        name: 'v2',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
  },
};

/** A fake apps cluster: a Kubernetes API server that serves Flux HelmReleases. */
export async function startAppsCluster(): Promise<FakeKubeApiServer> {
  const server = await FakeKubeApiServer.start();
  await KubeClient.fromKubeConfig(server.kubeConfig()).create(
    CRD_KIND,
    HELM_RELEASE_CRD as unknown as KubeObject,
  );
  return server;
}

/** A kubeconfig file with `yaml`, for APPS_KUBECONFIG; `remove` deletes it. */
export async function kubeconfigFile(
  yaml: string,
): Promise<{ path: string; remove(): Promise<void> }> {
  const directory = await mkdtemp(join(tmpdir(), 'apps-kubeconfig-'));
  const path = join(directory, 'kubeconfig');
  await writeFile(path, yaml, { mode: 0o600 });
  return { path, remove: () => rm(directory, { recursive: true, force: true }) };
}

export interface AppRelease {
  organizationId: string;
  projectId: string;
  appId: string;
  name: string;
  repository: string;
  tag: string;
  digest?: string;
  kind?: string;
  /** Default: the project's app namespace. */
  namespace?: string;
}

export type HelmReleaseObject = KubeObject<{
  values: { image: { repository: string; tag: string; digest?: string }; port: number };
}>;

/** An app's HelmRelease as the apps library lays it out. */
export function helmRelease(app: AppRelease): HelmReleaseObject {
  return {
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: {
      name: app.name,
      namespace: app.namespace ?? appNamespace(app.projectId),
      labels: {
        [APP_LABELS.organization]: app.organizationId,
        [APP_LABELS.project]: app.projectId,
        [APP_LABELS.kind]: app.kind ?? 'container',
        [APP_LABELS.app]: app.appId,
      },
    },
    spec: {
      values: {
        image: {
          repository: app.repository,
          tag: app.tag,
          ...(app.digest ? { digest: app.digest } : {}),
        },
        port: 8080,
      },
    },
  };
}

/** A digest made of one repeated hex digit. */
export const digest = (hex: string) => `sha256:${hex.repeat(64).slice(0, 64)}`;

/** A Harbor PUSH_ARTIFACT event for `resourceUrl` (`registry/namespace/repository:tag`). */
export function pushEvent(resourceUrl: string, pushed: string): Record<string, unknown> {
  const [path, tag] = [
    resourceUrl.slice(0, resourceUrl.lastIndexOf(':')),
    resourceUrl.slice(resourceUrl.lastIndexOf(':') + 1),
  ];
  const [, namespace, name] = path.split('/');
  return {
    type: 'PUSH_ARTIFACT',
    occur_at: 1_717_171_717,
    operator: 'robot$ci',
    event_data: {
      resources: [{ digest: pushed, tag, resource_url: resourceUrl }],
      repository: { name, namespace, repo_full_name: `${namespace}/${name}`, repo_type: 'private' },
    },
  };
}

/** A public address the scripted resolver hands out; nothing connects to it. */
export const PUBLIC_ADDRESS = '93.184.215.14';

/**
 * Names the tests use for webhook urls: `*.example.test` resolves to a public address,
 * `internal.test` to a private one, anything else does not resolve.
 */
export const scriptedResolver: HostResolver = async (hostname) => {
  if (hostname.endsWith('.example.test')) return [{ address: PUBLIC_ADDRESS, family: 4 }];
  if (hostname === 'internal.test') return [{ address: '10.0.0.7', family: 4 }];
  throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

/**
 * The API as production runs it (OUTBOUND_ALLOW_PRIVATE_NETWORKS=false) with the scripted
 * resolver, with APPS_KUBECONFIG unset unless `options.config` sets it.
 */
export function webhooksApiApp(options: ApiTestAppOptions = {}): Promise<TestApp> {
  return createApiTestApp({
    ...options,
    config: { outboundAllowPrivateNetworks: false, ...options.config },
    override: (builder) =>
      (options.override?.(builder) ?? builder)
        .overrideProvider(OUTBOUND_RESOLVER)
        .useValue(scriptedResolver),
  });
}

/** The actions audited on a webhook, sorted (entries of one instant have no order). */
export async function auditedActions(t: TestApp, webhookId: string): Promise<string[]> {
  const rows = await t
    .get(DataSource)
    .query<Array<{ action: string }>>(
      `SELECT action FROM audit_log WHERE target_type = 'webhook' AND target_id = $1`,
      [webhookId],
    );
  return rows.map((row) => row.action).sort();
}
