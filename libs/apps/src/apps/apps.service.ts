import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { CapabilitiesService, capabilityNotEnabled, isEnabled } from '@platform/capabilities';
import { CloudAudit, CloudErrorCode, CloudException } from '@platform/cloud-core';
import { CoreErrorCode, CoreException } from '@platform/core';
import type { Principal } from '@platform/identity';
import { AppsCluster, ensureNamespace } from '../cluster/apps-cluster.js';
import {
  appNamespace,
  type HelmRelease,
  HelmReleaseKind,
  PlatformLabels,
} from '../cluster/layout.js';
import { type AppKind, chartValues, clientValues, getPath } from './app-kinds.js';
import { AppReleases } from './app-releases.js';
import { validatedValues } from './app-values.js';
import { type AppView, appView } from './app-view.js';
import type { CreateAppBody, UpdateAppBody } from './apps.dto.js';
import { chartOf, ensureChartSource } from './chart-sources.js';
import { mergePatchFrom } from './merge-patch.js';

/** How often Flux reconciles a release (drift, and a retry after a failure). */
const RELEASE_INTERVAL = '10m';

/**
 * Apps: Flux HelmReleases in the project's namespace of the apps cluster, found by the app id
 * label (and the project's, so another project's id is 404 even where two projects' namespace
 * names meet). Reads go through the cache of AppReleases.
 */
@Injectable()
export class AppsService {
  constructor(
    private readonly cluster: AppsCluster,
    private readonly releases: AppReleases,
    private readonly capabilities: CapabilitiesService,
    private readonly audit: CloudAudit,
  ) {}

  async list(principal: Principal): Promise<AppView[]> {
    const releases = await this.releases.ofProject(projectOf(principal));
    return releases.map(appView).sort((a, b) => a.name.localeCompare(b.name));
  }

  async show(principal: Principal, id: string): Promise<AppView> {
    return appView(await this.found(principal, id));
  }

  /**
   * Axis B by the body's kind (a route's static kind cannot say which): Available is read
   * afresh on every attempt, so a narrowed Limit stops the next create at once, while apps
   * that run are never touched by it.
   */
  async create(principal: Principal, body: CreateAppBody): Promise<AppView> {
    const projectId = projectOf(principal);
    await this.checkAvailable(projectId, body.kind);
    const values = validatedValues(body.kind, body.values);
    const id = randomUUID();
    const namespace = appNamespace(projectId);
    const labels = {
      [PlatformLabels.organization]: principal.organizationId ?? '',
      [PlatformLabels.project]: projectId,
    };
    const release: HelmRelease = {
      apiVersion: 'helm.toolkit.fluxcd.io/v2',
      kind: 'HelmRelease',
      metadata: {
        name: body.name,
        namespace,
        labels: {
          ...labels,
          [PlatformLabels.appKind]: body.kind,
          [PlatformLabels.appId]: id,
        },
      },
      spec: {
        interval: RELEASE_INTERVAL,
        chart: chartOf(body.kind),
        values: chartValues(body.kind, values),
        install: { remediation: { retries: 3 } },
        upgrade: { remediation: { retries: 3 } },
      },
    };
    const created = await this.cluster.run('helmreleases', async (kube) => {
      await Promise.all([
        ensureNamespace(kube, namespace, labels, PlatformLabels.project),
        ensureChartSource(kube, body.kind),
      ]);
      return kube.create(HelmReleaseKind, release);
    });
    await this.audit.record(
      principal,
      'apps.create',
      { type: 'app', id },
      { name: body.name, kind: body.kind },
    );
    await this.releases.settled(
      (cache) => cache.get(namespace, body.name)?.metadata.uid === created.metadata.uid,
    );
    return appView(created);
  }

  /**
   * Values are replaced as a whole. A pinned image digest stays while the image (repository
   * and tag) stays: it is what that tag points at; a new image drops it.
   */
  async update(principal: Principal, id: string, body: UpdateAppBody): Promise<AppView> {
    const projectId = projectOf(principal);
    const current = await this.found(principal, id, true);
    const name = current.metadata.name ?? '';
    if (body.name !== undefined && body.name !== name) {
      throw invalid('name', 'name cannot change: an app is not renamed, create another one');
    }
    const currentKind = current.metadata.labels?.[PlatformLabels.appKind] as AppKind;
    const kind = body.kind ?? currentKind;
    if (kind !== currentKind) await this.checkAvailable(projectId, kind);
    const values = validatedValues(
      kind,
      body.values ?? clientValues(currentKind, current.spec?.values),
    );
    const wanted = chartValues(kind, values);
    const pinned = getPath(current.spec?.values, ['image', 'digest']);
    const keepsImage = kind === 'container' && sameImage(current, wanted);
    if (keepsImage && pinned !== undefined) {
      (wanted.image as Record<string, unknown>).digest = pinned;
    }
    const valuesPatch = mergePatchFrom(current.spec?.values ?? {}, wanted) as Record<
      string,
      unknown
    >;
    // A new image drops a digest even if one was pinned after our read.
    if (kind === 'container' && !keepsImage) {
      valuesPatch.image = { ...(valuesPatch.image as object), digest: null };
    }
    const patch = {
      metadata: { labels: { [PlatformLabels.appKind]: kind } },
      spec: { chart: mergePatchFrom(current.spec?.chart, chartOf(kind)), values: valuesPatch },
    };
    const namespace = appNamespace(projectId);
    const patched = await this.cluster.run('helmreleases', async (kube) => {
      if (kind !== currentKind) await ensureChartSource(kube, kind);
      return kube.mergePatch<HelmRelease>(HelmReleaseKind, namespace, name, patch);
    });
    await this.audit.record(
      principal,
      'apps.update',
      { type: 'app', id },
      { name, kind, ...(kind !== currentKind ? { previous_kind: currentKind } : {}) },
    );
    const version = patched.metadata.resourceVersion;
    await this.releases.settled((cache) =>
      atLeast(cache.get(namespace, name)?.metadata.resourceVersion, version),
    );
    return appView(patched);
  }

  /** Flux uninstalls the release; the app is gone from reads at once. */
  async delete(principal: Principal, id: string): Promise<void> {
    const current = await this.found(principal, id, true);
    const { name, namespace, uid } = current.metadata;
    await this.cluster.run('helmreleases', (kube) =>
      kube.delete(HelmReleaseKind, namespace, name ?? ''),
    );
    await this.audit.record(principal, 'apps.delete', { type: 'app', id }, { name });
    await this.releases.settled((cache) => {
      const cached = cache.get(namespace, name ?? '');
      return !cached || cached.metadata.uid !== uid || Boolean(cached.metadata.deletionTimestamp);
    });
  }

  private async found(principal: Principal, id: string, fresh = false): Promise<HelmRelease> {
    const release = await this.releases.find(projectOf(principal), id, { fresh });
    if (!release) throw new CloudException(CloudErrorCode.NotFound, 'Resource not found');
    return release;
  }

  private async checkAvailable(projectId: string, kind: AppKind): Promise<void> {
    if (!isEnabled(await this.capabilities.available(projectId, 'apps'), kind)) {
      throw capabilityNotEnabled('apps', kind);
    }
  }
}

function projectOf(principal: Principal): string {
  if (!principal.projectId) throw new Error('the apps routes are project-scoped');
  return principal.projectId;
}

function sameImage(current: HelmRelease, wanted: Record<string, unknown>): boolean {
  const values = current.spec?.values;
  return (
    getPath(values, ['image', 'repository']) === getPath(wanted, ['image', 'repository']) &&
    getPath(values, ['image', 'tag']) === getPath(wanted, ['image', 'tag'])
  );
}

/**
 * Whether the cache holds `version` of an object or a later one. resourceVersions are opaque,
 * but etcd's (every real API server's) are increasing integers; anything else compares equal
 * or not at all.
 */
function atLeast(cached: string | undefined, version: string | undefined): boolean {
  if (!cached || !version) return false;
  if (/^\d+$/.test(cached) && /^\d+$/.test(version)) return BigInt(cached) >= BigInt(version);
  return cached === version;
}

const invalid = (field: string, message: string) =>
  new CoreException(CoreErrorCode.ValidationFailed, `Validation failed: ${message}`, {
    details: { fields: [{ field, messages: [message] }] },
  });
