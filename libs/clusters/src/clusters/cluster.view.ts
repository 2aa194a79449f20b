import { ApiProperty } from '@nestjs/swagger';
import type { Shoot } from '../garden/gardener-kinds.js';

/*
 * A cluster as the API shows it (4-cloud-resources.md): the Shoot's uid as its id, what the
 * create chose, its status from `.status.lastOperation` and its conditions.
 */

export class ClusterWorkerDto {
  @ApiProperty() name!: string;
  @ApiProperty() machine_type!: string;
  @ApiProperty({ type: 'integer' }) minimum!: number;
  @ApiProperty({ type: 'integer' }) maximum!: number;
}

export class ClusterStatusDto {
  @ApiProperty({
    description:
      "Gardener's state of the last operation: `Pending` (nothing reported yet), `Processing`, `Succeeded`, `Error` (retried by Gardener), `Failed`, `Aborted`",
    example: 'Processing',
  })
  state!: string;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: 100, description: 'percent done' })
  progress!: number;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'the operation: `Create`, `Reconcile`, `Delete`, `Migrate`, `Restore`; `Delete` from the moment a deletion is accepted',
  })
  type!: string | null;

  @ApiProperty({ type: String, nullable: true }) description!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_update_time!: string | null;
}

export class ClusterConditionDto {
  @ApiProperty({ example: 'APIServerAvailable' }) type!: string;
  @ApiProperty({ description: '`True`, `False`, `Unknown` or `Progressing`' }) status!: string;
  @ApiProperty({ type: String, nullable: true }) reason!: string | null;
  @ApiProperty({ type: String, nullable: true }) message!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_transition_time!: string | null;
}

export class ClusterDto {
  @ApiProperty({ format: 'uuid', description: "the Shoot's uid" }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() kubernetes_version!: string;
  @ApiProperty() cloud_profile!: string;
  @ApiProperty() region!: string;
  @ApiProperty({ type: [ClusterWorkerDto] }) workers!: ClusterWorkerDto[];
  @ApiProperty({ type: ClusterStatusDto }) status!: ClusterStatusDto;
  @ApiProperty({ type: [ClusterConditionDto] }) conditions!: ClusterConditionDto[];
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  created_at!: string | null;
}

/** `deleted`: the garden no longer has the Shoot (its deletion finished at once). */
export function clusterView(shoot: Shoot, options: { deleted?: boolean } = {}): ClusterDto {
  const spec = shoot.spec ?? {};
  return {
    id: shoot.metadata.uid ?? '',
    name: shoot.metadata.name ?? '',
    kubernetes_version: spec.kubernetes?.version ?? '',
    cloud_profile: spec.cloudProfile?.name ?? spec.cloudProfileName ?? '',
    region: spec.region ?? '',
    workers: (spec.provider?.workers ?? []).map((worker) => ({
      name: worker.name,
      machine_type: worker.machine?.type ?? '',
      minimum: worker.minimum,
      maximum: worker.maximum,
    })),
    status: statusOf(shoot, options.deleted === true),
    conditions: (shoot.status?.conditions ?? []).map((condition) => ({
      type: condition.type,
      status: condition.status,
      reason: condition.reason ?? null,
      message: condition.message ?? null,
      last_transition_time: condition.lastTransitionTime ?? null,
    })),
    created_at: shoot.metadata.creationTimestamp
      ? new Date(shoot.metadata.creationTimestamp).toISOString()
      : null,
  };
}

/**
 * `.status.lastOperation`, as Gardener reports it. Before Gardener reported anything the
 * operation is pending: a new Shoot's `Create`, or the `Delete` of one whose deletion was
 * accepted (Gardener's deletion reports come later).
 */
function statusOf(shoot: Shoot, deleted: boolean): ClusterStatusDto {
  if (deleted) {
    return {
      state: 'Succeeded',
      progress: 100,
      type: 'Delete',
      description: 'The cluster is deleted',
      last_update_time: null,
    };
  }
  const last = shoot.status?.lastOperation;
  const deleting = Boolean(shoot.metadata.deletionTimestamp);
  if (!last || (deleting && last.type !== 'Delete')) {
    return {
      state: 'Pending',
      progress: 0,
      type: deleting ? 'Delete' : 'Create',
      description: null,
      last_update_time: null,
    };
  }
  return {
    state: last.state ?? 'Pending',
    progress: Math.max(0, Math.min(100, Math.round(last.progress ?? 0))),
    type: last.type ?? null,
    description: last.description ?? null,
    last_update_time: last.lastUpdateTime ?? null,
  };
}
