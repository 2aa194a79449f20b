import { Injectable } from '@nestjs/common';
import { MetricsService } from '@platform/core';
import {
  CoreKinds,
  ensureObject,
  EventRecorder,
  type FinalizeResult,
  type ReconcileContext,
  type ReconcileResult,
  type Reconciler,
  ThirdPartyKinds,
  writeStatus,
} from '@platform/kube';
import { GroupwareKindRefs } from '../crds/definitions.js';
import type { GroupwareInstance, GroupwareProfile } from '../crds/types.js';
import { ensureAdminSecret } from './admin-secret.js';
import { applyApps } from './app-jobs.js';
import { cleanUpBackupData, syncDataBackup } from './data-backup-sync.js';
import { mailEnv, redisEnv, type Values, withRemovals } from './helm-values.js';
import { type HelmRelease, helmRelease, releaseState, wasInstalled } from './helm-release.js';
import { ensureHelmRepository } from './helm-repository.js';
import { InstanceMetrics } from './instance-metrics.js';
import { INSTANCE_FINALIZER, InstanceLabels, MANAGED_BY } from './instance-names.js';
import {
  buildStatus,
  type InstancePhase,
  instanceUrl,
  nextPhase,
  type Observation,
} from './instance-status.js';
import { specProblem } from './instance-validation.js';
import { databaseState, type PostgresCluster, postgresCluster } from './managed-database.js';
import { chooseVersion, type VersionChoice, type VersionResolution } from './version-resolution.js';

const InstanceKind = GroupwareKindRefs.GroupwareInstance;
const PROFILE_RECHECK_MS = 60_000;

/**
 * Keeps a GroupwareInstance's cluster objects as 5-groupware-operator.md names them — admin
 * Secret, the namespace's HelmRepository, HelmRelease, CloudNativePG Cluster, data-backup
 * CronJob, apps Jobs — and reports phase, conditions and version in its status, with an Event
 * on every phase change.
 */
@Injectable()
export class GroupwareInstanceReconciler implements Reconciler<GroupwareInstance> {
  readonly kind = InstanceKind;
  // Secrets are not watched: the operator may only get and create them.
  readonly owns = [
    CoreKinds.Job,
    CoreKinds.CronJob,
    ThirdPartyKinds.HelmRelease,
    ThirdPartyKinds.HelmRepository,
    ThirdPartyKinds.PostgresCluster,
  ];
  /** Only the operator's own objects are cached, not every Job of the cluster. */
  readonly ownsSelector = `${InstanceLabels.managedBy}=${MANAGED_BY}`;
  readonly finalizer = INSTANCE_FINALIZER;
  private readonly events = new EventRecorder(MANAGED_BY);
  private readonly metrics: InstanceMetrics;

  constructor(metrics: MetricsService) {
    this.metrics = new InstanceMetrics(metrics);
  }

  async reconcile(
    instance: GroupwareInstance,
    context: ReconcileContext,
  ): Promise<ReconcileResult | void> {
    if (!instance.status?.phase) {
      await this.report(context, instance, 'Pending', { serving: false });
    }
    const profile = await readProfile(context, instance);
    const problem = specProblem(instance.spec!, profile);
    if (problem) {
      const observation = {
        serving: false,
        failure: { cause: 'InvalidSpec' as const, message: problem.message },
      };
      await this.report(context, instance, 'Failed', observation);
      // Profiles are not watched: look again for one that may have been created since.
      return problem.field === 'spec.profile' ? { requeueAfterMs: PROFILE_RECHECK_MS } : undefined;
    }
    const installed = wasInstalled(
      context
        .cache<HelmRelease>(ThirdPartyKinds.HelmRelease)
        .get(instance.metadata.namespace, instance.metadata.name!),
    );
    const running = installed ? instance.status?.versionResolution : undefined;
    const version = chooseVersion(instance.spec!.version, running);
    const { cluster, release } = await applyChildren(context, instance, profile, version);
    const observation = observe(cluster, release, version);
    let requeueAfterMs: number | undefined;
    if (observation.serving && !observation.failure) {
      requeueAfterMs = await this.applyApps(context, instance, version, observation);
    }
    const phase = nextPhase(instance.status?.phase, observation);
    await this.report(context, instance, phase, observation);
    return requeueAfterMs === undefined ? undefined : { requeueAfterMs };
  }

  /**
   * Deletes the backup data first when asked to. Owned objects, and the HelmRepository once
   * its last owner is gone, go by garbage collection.
   */
  async finalize(
    instance: GroupwareInstance,
    context: ReconcileContext,
  ): Promise<FinalizeResult | void> {
    const pending = await cleanUpBackupData(context, instance, this.events);
    if (pending) return pending;
    this.metrics.forget(instance.metadata.namespace!, instance.metadata.name!);
  }

  /** Runs the apps Jobs of a serving instance; records what they applied in `observation`. */
  private async applyApps(
    context: ReconcileContext,
    instance: GroupwareInstance,
    version: VersionChoice,
    observation: Observation,
  ): Promise<number | undefined> {
    const spec = instance.spec!;
    const image = `nextcloud:${version.resolution.resolvedVersion}`;
    const apps = await applyApps(context, instance, image, [...redisEnv(spec), ...mailEnv(spec)]);
    observation.apps = apps.applied;
    observation.failure = apps.failure;
    if (apps.retried) {
      this.metrics.countOccFailure(instance.metadata.namespace!, instance.metadata.name!);
    }
    return apps.requeueAfterMs;
  }

  /** Writes the status for `phase`; an Event marks a phase change or a newly blocked upgrade. */
  private async report(
    context: ReconcileContext,
    instance: GroupwareInstance,
    phase: InstancePhase,
    observation: Observation,
  ): Promise<void> {
    const previous = instance.status;
    const status = buildStatus({
      previous,
      phase,
      observation,
      generation: instance.metadata.generation,
      url: instanceUrl(instance.spec!),
      now: context.clock.now(),
    });
    await writeStatus(context, InstanceKind, instance, status);
    const { namespace, name } = instance.metadata;
    this.metrics.recordPhase(namespace!, name!, phase);
    if (previous?.phase !== phase) {
      const failure = phase === 'Failed' ? observation.failure : undefined;
      await this.emit(context, instance, {
        reason: failure?.cause ?? phase,
        message: failure?.message ?? `phase ${previous?.phase ?? 'none'} -> ${phase}`,
        warning: failure !== undefined,
      });
    }
    const wasBlocked = previous?.conditions?.some((c) => c.type === 'UpgradeBlocked');
    if (observation.upgradeBlocked && !wasBlocked) {
      await this.emit(context, instance, {
        reason: 'UpgradeBlocked',
        message: observation.upgradeBlocked,
        warning: true,
      });
    }
  }

  private async emit(
    context: ReconcileContext,
    instance: GroupwareInstance,
    event: { reason: string; message: string; warning: boolean },
  ): Promise<void> {
    try {
      await this.events.record(context.client, { object: instance, ...event }, context.clock.now());
    } catch (error) {
      context.logger.warn?.(
        `GroupwareInstance ${instance.metadata.namespace}/${instance.metadata.name}: event ${event.reason} not recorded: ${String(error)}`,
      );
    }
  }
}

async function readProfile(
  context: ReconcileContext,
  instance: GroupwareInstance,
): Promise<GroupwareProfile | undefined> {
  const name = instance.spec!.profile;
  if (!name) return undefined;
  return context.client.get<GroupwareProfile>(GroupwareKindRefs.GroupwareProfile, undefined, name);
}

/** Secrets, chart source, database, release and backup CronJob, as the spec wants them. */
async function applyChildren(
  context: ReconcileContext,
  instance: GroupwareInstance,
  profile: GroupwareProfile | undefined,
  version: VersionChoice,
): Promise<{ cluster?: PostgresCluster; release: HelmRelease }> {
  await ensureAdminSecret(context, instance);
  await ensureHelmRepository(context, instance);
  const cluster = instance.spec!.database.managed
    ? await ensureObject(context, ThirdPartyKinds.PostgresCluster, postgresCluster(instance))
    : undefined;
  const release = await ensureObject(
    context,
    ThirdPartyKinds.HelmRelease,
    desiredRelease(context, instance, profile, version.resolution),
  );
  await syncDataBackup(context, instance);
  return { cluster, release };
}

/** The HelmRelease as the spec wants it, removing values an earlier spec set. */
function desiredRelease(
  context: ReconcileContext,
  instance: GroupwareInstance,
  profile: GroupwareProfile | undefined,
  resolution: VersionResolution,
): HelmRelease {
  const desired = helmRelease(instance, profile, resolution);
  const live = context
    .cache<HelmRelease>(ThirdPartyKinds.HelmRelease)
    .get(instance.metadata.namespace, instance.metadata.name!);
  desired.spec!.values = withRemovals(desired.spec!.values as Values, live?.spec?.values);
  return desired;
}

function observe(
  cluster: PostgresCluster | undefined,
  release: HelmRelease,
  version: VersionChoice,
): Observation {
  const database = cluster ? databaseState(cluster) : { state: 'healthy' as const };
  const helm = releaseState(release);
  const observation: Observation = {
    serving: helm.state === 'ready' && database.state === 'healthy',
    installed: wasInstalled(release),
    resolution: version.resolution,
    upgradeBlocked: version.blocked,
  };
  if (database.state === 'failed') {
    observation.failure = { cause: 'DatabaseFailed', message: database.message };
  } else if (helm.state === 'failed') {
    observation.failure = {
      cause: 'ReleaseFailed',
      message: `HelmRelease ${release.metadata.name}: ${helm.reason}: ${helm.message}`,
    };
  }
  return observation;
}
