import { Inject, Injectable } from '@nestjs/common';
import { CloudErrorCode, CloudException, providerUnavailable } from '@platform/cloud-core';
import type { Principal } from '@platform/identity';
import { GardenCluster } from '../garden/garden-cluster.js';
import { type GardenerProject, GardenerKinds } from '../garden/gardener-kinds.js';

/** How long a write waits for a new Gardener project to be Ready (tests shorten it). */
export const GARDEN_PROJECT_READY_TIMEOUT_MS = Symbol('GARDEN_PROJECT_READY_TIMEOUT_MS');
export const DEFAULT_PROJECT_READY_TIMEOUT_MS = 10_000;
const READY_POLL_MS = 200;

/** Labels naming, on the Gardener project, the platform project and organization it serves. */
export const PROJECT_ID_LABEL = 'platform.k8s.neutral.com/project-id';
export const ORGANIZATION_ID_LABEL = 'platform.k8s.neutral.com/organization-id';

/** `p` + the first 8 hex digits of the platform project's uuid (4-cloud-resources.md). */
export const gardenProjectName = (projectId: string): string =>
  `p${projectId.replace(/-/g, '').slice(0, 8).toLowerCase()}`;

/** The namespace Gardener makes for the project: `garden-<project name>`. */
export const gardenNamespace = (projectName: string): string => `garden-${projectName}`;

/**
 * The Gardener `Project` of each platform project, created on first write and adopted when it
 * exists. The Gardener project itself is the record (no table of ours): its name follows from
 * the uuid and its label says which platform project it serves, so replicas racing to create it
 * end with one (the later create's 409 adopts the winner's), and a project of that name serving
 * another platform project (eight hex digits can collide) is refused rather than shared.
 *
 * Gardener makes the owner the identity that created it (the platform's garden service
 * account) and creates the namespace `garden-<name>`; Shoots are written only once the project
 * reports `Ready`, so they never race the namespace.
 */
@Injectable()
export class GardenProjects {
  /** Projects seen Ready and ours: platform project id → namespace. They never move. */
  private readonly known = new Map<string, string>();
  private readonly provisioning = new Map<string, Promise<string>>();

  constructor(
    private readonly garden: GardenCluster,
    @Inject(GARDEN_PROJECT_READY_TIMEOUT_MS) private readonly readyTimeoutMs: number,
  ) {}

  /**
   * The namespace of the project's clusters for a read, or null while it has no Gardener
   * project: reads never create one.
   */
  async existingNamespace(principal: Principal): Promise<string | null> {
    const projectId = projectOf(principal);
    const known = this.known.get(projectId);
    if (known) return known;
    const project = await this.read(gardenProjectName(projectId));
    if (!project) return null;
    const namespace = namespaceOf(ownProject(project, projectId));
    if (project.status?.phase === 'Ready') this.known.set(projectId, namespace);
    return namespace;
  }

  /** The namespace of the project's clusters for a write, provisioning the project first. */
  async namespaceFor(principal: Principal): Promise<string> {
    const projectId = projectOf(principal);
    const known = this.known.get(projectId);
    if (known) return known;
    let pending = this.provisioning.get(projectId);
    if (!pending) {
      pending = this.provision(projectId, principal.organizationId).finally(() =>
        this.provisioning.delete(projectId),
      );
      this.provisioning.set(projectId, pending);
    }
    const namespace = await pending;
    this.known.set(projectId, namespace);
    return namespace;
  }

  /** Forgets a project whose namespace turned out missing (deleted behind the platform's back). */
  forget(principal: Principal): void {
    this.known.delete(projectOf(principal));
  }

  private async provision(projectId: string, organizationId: string | null): Promise<string> {
    const name = gardenProjectName(projectId);
    const existing = await this.read(name);
    const project = existing ?? (await this.create(name, projectId, organizationId));
    return this.whenReady(ownProject(project, projectId), projectId);
  }

  private async create(
    name: string,
    projectId: string,
    organizationId: string | null,
  ): Promise<GardenerProject> {
    const project: GardenerProject = {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Project',
      metadata: {
        name,
        labels: {
          [PROJECT_ID_LABEL]: projectId,
          ...(organizationId ? { [ORGANIZATION_ID_LABEL]: organizationId } : {}),
        },
      },
      // No owner or members: Gardener makes the creator (the garden service account) both.
      spec: {
        namespace: gardenNamespace(name),
        description: `Kubernetes clusters of platform project ${projectId}`,
        purpose: 'Managed by the platform',
      },
    };
    try {
      return await this.garden.run('projects', (kube) =>
        kube.create(GardenerKinds.Project, project),
      );
    } catch (error) {
      // Another replica created it in between: adopt theirs (checked to be ours below).
      if (error instanceof CloudException && error.code === CloudErrorCode.Conflict) {
        const winner = await this.read(name);
        if (winner) return winner;
      }
      throw error;
    }
  }

  /** Waits until Gardener reports the project Ready (its namespace exists then). */
  private async whenReady(project: GardenerProject, projectId: string): Promise<string> {
    const name = project.metadata.name!;
    const deadline = Date.now() + this.readyTimeoutMs;
    let current: GardenerProject | undefined = project;
    for (;;) {
      if (!current) throw providerUnavailable('garden', `the Gardener project ${name} is gone`);
      if (current.metadata.deletionTimestamp) {
        throw providerUnavailable('garden', `the Gardener project ${name} is being deleted`);
      }
      if (current.status?.phase === 'Ready') return namespaceOf(ownProject(current, projectId));
      if (Date.now() >= deadline) {
        throw providerUnavailable(
          'garden',
          `the Gardener project ${name} is not ready yet (phase ${current.status?.phase ?? 'none'})`,
          { provider: 'garden', gardener_project: name },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
      current = await this.read(name);
    }
  }

  private read(name: string): Promise<GardenerProject | undefined> {
    return this.garden.run('projects', (kube) =>
      kube.get<GardenerProject>(GardenerKinds.Project, undefined, name),
    );
  }
}

function projectOf(principal: Principal): string {
  if (!principal.projectId) throw new Error('a /k8s route names its project');
  return principal.projectId;
}

function namespaceOf(project: GardenerProject): string {
  return project.spec?.namespace ?? gardenNamespace(project.metadata.name!);
}

/**
 * The project, when it serves this platform project. A Gardener project of the same name
 * without our label, or with another project's, is never shared: its clusters are not ours.
 */
function ownProject(project: GardenerProject, projectId: string): GardenerProject {
  if (project.metadata.labels?.[PROJECT_ID_LABEL] === projectId) return project;
  const name = project.metadata.name!;
  throw new CloudException(
    CloudErrorCode.ProviderUnavailable,
    `The Gardener project ${name} serves something else than this project; a platform operator must resolve it`,
    { retryable: false, details: { provider: 'garden', gardener_project: name } },
  );
}
