import { Injectable } from '@nestjs/common';
import { CloudAudit, CloudErrorCode, CloudException } from '@platform/cloud-core';
import {
  type AppException,
  Clock,
  CoreErrorCode,
  CoreException,
  type FieldError,
} from '@platform/core';
import type { Principal } from '@platform/identity';
import { CloudProfilesService } from '../cloud-profiles/cloud-profiles.service.js';
import { GardenCluster } from '../garden/garden-cluster.js';
import { GardenerKinds, type Shoot } from '../garden/gardener-kinds.js';
import {
  GardenProjects,
  ORGANIZATION_ID_LABEL,
  PROJECT_ID_LABEL,
} from '../tenancy/garden-projects.service.js';
import { type ClusterDto, clusterView } from './cluster.view.js';
import type { CreateClusterBody } from './clusters.dto.js';
import {
  bodyProblems,
  CONFIRM_DELETION_ANNOTATION,
  profileProblems,
  shootDefaultsOf,
  shootOf,
} from './shoot-spec.js';

const notFound = () => new CloudException(CloudErrorCode.NotFound, 'Resource not found');

function validationFailed(fields: FieldError[]): AppException {
  const summary = fields.map((f) => f.messages.join(', ')).join('; ');
  return new CoreException(CoreErrorCode.ValidationFailed, `Validation failed: ${summary}`, {
    details: { fields },
  });
}

/**
 * The project's clusters: Shoots in the namespace of its Gardener project, and nowhere else
 * (rule 3): a Shoot is found by its uid among that namespace's, so another project's id is a
 * 404 like an unknown one.
 */
@Injectable()
export class ClustersService {
  constructor(
    private readonly garden: GardenCluster,
    private readonly projects: GardenProjects,
    private readonly profiles: CloudProfilesService,
    private readonly audit: CloudAudit,
    private readonly clock: Clock,
  ) {}

  async list(principal: Principal): Promise<ClusterDto[]> {
    const namespace = await this.projects.existingNamespace(principal);
    if (!namespace) return [];
    return (await this.shoots(namespace))
      .map((shoot) => clusterView(shoot))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async show(principal: Principal, id: string): Promise<ClusterDto> {
    return clusterView(await this.find(principal, id));
  }

  /**
   * Checks the body against the chosen cloud profile before anything is written (no Gardener
   * project is made for a create that cannot succeed), then writes the Shoot: 202 with the
   * cluster as it stands, its status `Pending` until Gardener reports progress.
   */
  async create(principal: Principal, body: CreateClusterBody): Promise<ClusterDto> {
    const own = bodyProblems(body);
    if (own.length > 0) throw validationFailed(own);
    const profile = await this.profiles.find(body.cloud_profile);
    if (!profile) {
      throw validationFailed([
        {
          field: 'cloud_profile',
          messages: [`cloud_profile ${body.cloud_profile} does not exist (GET /k8s/cloudprofiles)`],
        },
      ]);
    }
    const problems = profileProblems(body, profile, this.clock.now());
    if (problems.length > 0) throw validationFailed(problems);
    const defaults = shootDefaultsOf(profile);
    if (typeof defaults === 'string') {
      throw new CloudException(
        CloudErrorCode.ProviderUnavailable,
        `Cloud profile ${body.cloud_profile} is misconfigured: ${defaults}`,
        { retryable: false, details: { provider: 'garden', cloud_profile: body.cloud_profile } },
      );
    }
    const namespace = await this.projects.namespaceFor(principal);
    const labels = {
      [PROJECT_ID_LABEL]: principal.projectId!,
      [ORGANIZATION_ID_LABEL]: principal.organizationId!,
    };
    const shoot = shootOf(body, profile, namespace, labels, defaults);
    const created = await this.garden
      .run('shoots', (kube) => kube.create(GardenerKinds.Shoot, shoot))
      .catch((error: unknown) => {
        throw this.createFailure(principal, error, body.name);
      });
    await this.audit.record(
      principal,
      'clusters.create',
      { type: 'cluster', id: created.metadata.uid! },
      {
        name: body.name,
        cloud_profile: body.cloud_profile,
        region: body.region,
        kubernetes_version: body.kubernetes_version,
        gardener_namespace: namespace,
      },
    );
    return clusterView(created);
  }

  /**
   * Gardener deletes a Shoot only once it carries the confirmation annotation: set it, then
   * delete. Deleting takes Gardener minutes (it tears down the machines first), so the answer
   * is the cluster as it stands, its status a `Delete`; a Shoot gone at once is reported done.
   */
  async delete(principal: Principal, id: string): Promise<ClusterDto> {
    const shoot = await this.find(principal, id);
    const { namespace, name } = shoot.metadata as { namespace: string; name: string };
    const confirmed = await this.garden.run('shoots', (kube) =>
      kube.mergePatch<Shoot>(GardenerKinds.Shoot, namespace, name, {
        // The uid makes the patch fail rather than confirm a Shoot made anew under that name.
        metadata: { uid: id, annotations: { [CONFIRM_DELETION_ANNOTATION]: 'true' } },
      }),
    );
    const remaining = await this.garden.run('shoots', async (kube) => {
      await kube.delete(GardenerKinds.Shoot, namespace, name);
      return kube.get<Shoot>(GardenerKinds.Shoot, namespace, name);
    });
    await this.audit.record(principal, 'clusters.delete', { type: 'cluster', id }, { name });
    return remaining?.metadata.uid === id
      ? clusterView(remaining)
      : clusterView(confirmed, { deleted: true });
  }

  private async find(principal: Principal, id: string): Promise<Shoot> {
    const namespace = await this.projects.existingNamespace(principal);
    if (!namespace) throw notFound();
    const shoot = (await this.shoots(namespace)).find((s) => s.metadata.uid === id);
    if (!shoot) throw notFound();
    return shoot;
  }

  private async shoots(namespace: string): Promise<Shoot[]> {
    const { items } = await this.garden.run('shoots', (kube) =>
      kube.list<Shoot>(GardenerKinds.Shoot, namespace),
    );
    return items;
  }

  /** A taken name says so in the customer's words; a missing namespace is forgotten. */
  private createFailure(principal: Principal, error: unknown, name: string): unknown {
    if (!(error instanceof CloudException)) return error;
    if (error.code === CloudErrorCode.Conflict) {
      const message = `A cluster named '${name}' already exists in this project`;
      return new CloudException(CloudErrorCode.Conflict, message, {
        details: { ...(error.details as object), message },
      });
    }
    if (error.code === CloudErrorCode.NotFound) {
      // The namespace went away behind the platform's back: provision again next time.
      this.projects.forget(principal);
      return new CloudException(
        CloudErrorCode.ProviderUnavailable,
        "The project's Gardener namespace is missing; retry to provision it again",
        { retryable: true, details: { provider: 'garden' } },
      );
    }
    return error;
  }
}
