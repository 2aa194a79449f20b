import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { CloudAudit, CloudErrorCode, CloudException } from '@platform/cloud-core';
import { CoreErrorCode, CoreException } from '@platform/core';
import { organizationOf, type Principal } from '@platform/identity';
import { formatLabelSelector } from '@platform/kube';
import { AppsCluster, ensureNamespace } from '../cluster/apps-cluster.js';
import {
  type Groupware,
  GroupwareKind,
  GroupwareProfileKind,
  PlatformLabels,
  workspaceNamespace,
} from '../cluster/layout.js';
import type { CreateWorkspaceBody, WorkspaceResponseDto } from './workspaces.dto.js';

/**
 * Workspaces: Groupware objects of the groupware operator in the organization's namespace of
 * the apps cluster, found by the workspace id label (and the organization's, so another
 * organization's id is 404 even where two organizations' namespace names meet). A list is one
 * LIST call: statuses come with the objects.
 */
@Injectable()
export class WorkspacesService {
  constructor(
    private readonly cluster: AppsCluster,
    private readonly audit: CloudAudit,
  ) {}

  async list(principal: Principal): Promise<WorkspaceResponseDto[]> {
    const workspaces = await this.read(organizationOf(principal));
    return workspaces.map(workspaceView).sort((a, b) => a.name.localeCompare(b.name));
  }

  async show(principal: Principal, id: string): Promise<WorkspaceResponseDto> {
    return workspaceView(await this.found(principal, id));
  }

  /** The operator claims or creates the instance: answered as it stands (Pending). */
  async create(principal: Principal, body: CreateWorkspaceBody): Promise<WorkspaceResponseDto> {
    const organizationId = organizationOf(principal);
    const namespace = workspaceNamespace(organizationId);
    const id = randomUUID();
    const tenant = { [PlatformLabels.organization]: organizationId };
    const matchLabels = body.pool_selector ?? undefined;
    const groupware: Groupware = {
      apiVersion: 'k8s.neutral.com/v1alpha1',
      kind: 'Groupware',
      metadata: {
        name: body.name,
        namespace,
        labels: { ...tenant, [PlatformLabels.workspaceId]: id },
      },
      spec: {
        profile: body.profile,
        ...(matchLabels && Object.keys(matchLabels).length > 0
          ? { poolSelector: { matchLabels } }
          : {}),
      },
    };
    await this.checkProfile(body.profile);
    const created = await this.cluster.run('groupwares', async (kube) => {
      await ensureNamespace(kube, namespace, tenant, PlatformLabels.organization);
      return kube.create(GroupwareKind, groupware);
    });
    await this.audit.record(
      principal,
      'workspaces.create',
      { type: 'workspace', id },
      { name: body.name, profile: body.profile },
    );
    return workspaceView(created);
  }

  /** The operator deletes an instance it created, or releases a claimed one. */
  async delete(principal: Principal, id: string): Promise<void> {
    const current = await this.found(principal, id);
    const { name, namespace } = current.metadata;
    await this.cluster.run('groupwares', (kube) =>
      kube.delete(GroupwareKind, namespace, name ?? ''),
    );
    await this.audit.record(principal, 'workspaces.delete', { type: 'workspace', id }, { name });
  }

  /** A profile that does not exist would only fail in the operator, later and out of sight. */
  private async checkProfile(profile: string): Promise<void> {
    const found = await this.cluster.run('groupwareprofiles', (kube) =>
      kube.get(GroupwareProfileKind, undefined, profile),
    );
    if (found) return;
    const message = `profile names no groupware profile of the cluster (${profile})`;
    throw new CoreException(CoreErrorCode.ValidationFailed, `Validation failed: ${message}`, {
      details: { fields: [{ field: 'profile', messages: [message] }] },
    });
  }

  private async found(principal: Principal, id: string): Promise<Groupware> {
    const [found] = await this.read(organizationOf(principal), {
      [PlatformLabels.workspaceId]: id,
    });
    if (!found) throw new CloudException(CloudErrorCode.NotFound, 'Resource not found');
    return found;
  }

  /** The organization's workspaces (with `labels`), not counting those being deleted. */
  private async read(
    organizationId: string,
    labels: Record<string, string> = {},
  ): Promise<Groupware[]> {
    const selector = formatLabelSelector({
      [PlatformLabels.organization]: organizationId,
      ...labels,
    });
    const { items } = await this.cluster.run('groupwares', (kube) =>
      kube.list<Groupware>(GroupwareKind, workspaceNamespace(organizationId), {
        // The id label too: only workspaces made through the platform.
        labelSelector: `${selector},${PlatformLabels.workspaceId}`,
      }),
    );
    return items.filter((groupware) => !groupware.metadata.deletionTimestamp);
  }
}

export function workspaceView(groupware: Groupware): WorkspaceResponseDto {
  const status = groupware.status ?? {};
  const matchLabels = groupware.spec?.poolSelector?.matchLabels;
  const instance = status.instanceRef;
  return {
    id: groupware.metadata.labels?.[PlatformLabels.workspaceId] ?? '',
    name: groupware.metadata.name ?? '',
    profile: groupware.spec?.profile ?? '',
    pool_selector: matchLabels && Object.keys(matchLabels).length > 0 ? matchLabels : null,
    phase: status.phase ?? 'Pending',
    url: status.url ?? null,
    instance: instance?.name
      ? { namespace: instance.namespace ?? groupware.metadata.namespace ?? '', name: instance.name }
      : null,
  };
}
