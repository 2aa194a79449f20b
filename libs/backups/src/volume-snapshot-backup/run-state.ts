import { type ReconcileContext, type ReconcileResult, writeStatus } from '@platform/kube';
import { VolumeSnapshotBackupKind } from '../api/kinds.js';
import type { VolumeSnapshotBackup, VolumeSnapshotBackupStatus } from '../api/types.js';
import type { RunEvents } from '../volume-backup/backup-events.js';
import type { CinderClient, CinderClients } from './cinder-client.js';
import { CredentialsUnavailable, readCloudAccess } from './openstack-credentials.js';
import {
  type DefaultedSnapshotBackupSpec,
  snapshotBackupNames,
  withSnapshotBackupDefaults,
} from './snapshot-backup-spec.js';
import { conditionOf, SnapshotConditions, withCondition } from './snapshot-backup-status.js';
import type { SnapshotBackupWebhooks } from './snapshot-backup-webhooks.js';

/** How often Cinder is asked while a snapshot or volume is on its way. */
export const CINDER_POLL_MS = 5_000;
/** How often a run waiting on something outside it (a claim, a Secret) looks again. */
export const WAITING_POLL_MS = 60_000;

/** What a phase comes to: go on with the next phase now, or stop this pass. */
export type Step = { next: true } | { done: ReconcileResult | undefined };
export const NEXT: Step = { next: true };
export const waitFor = (ms?: number): Step => ({
  done: ms === undefined ? undefined : { requeueAfterMs: Math.max(0, Math.ceil(ms)) },
});

export interface RunServices {
  context: ReconcileContext;
  cinders: CinderClients;
  webhooks: SnapshotBackupWebhooks;
  events: RunEvents;
}

/** One pass over a VolumeSnapshotBackup: its defaulted spec, its status as written, its clients. */
export class RunState {
  readonly spec: DefaultedSnapshotBackupSpec;
  readonly namespace: string;
  readonly name: string;
  readonly names: ReturnType<typeof snapshotBackupNames>;
  status: VolumeSnapshotBackupStatus;
  private cinderClient?: CinderClient;

  constructor(
    readonly backup: VolumeSnapshotBackup,
    readonly services: RunServices,
  ) {
    this.namespace = backup.metadata.namespace ?? '';
    this.name = backup.metadata.name ?? '';
    this.spec = withSnapshotBackupDefaults(backup.spec!, this.namespace);
    this.names = snapshotBackupNames(backup);
    this.status = { ...backup.status };
  }

  get context(): ReconcileContext {
    return this.services.context;
  }

  get uid(): string {
    return this.backup.metadata.uid ?? '';
  }

  now(): Date {
    return this.context.clock.now();
  }

  /** `<namespace>/<claim>` of the backed-up claim. */
  get source(): string {
    const ref = this.spec.volumeClaimRef;
    return `${ref.namespace || this.namespace}/${ref.name}`;
  }

  /** Records the status (every phase change is a write, so watchers see each phase). */
  async save(status: VolumeSnapshotBackupStatus): Promise<void> {
    this.status = status;
    await writeStatus(this.context, VolumeSnapshotBackupKind, this.backup, status);
  }

  /** Ends the run's work with a failure: Cleanup removes what it made, then Failed. */
  async fail(reason: string, message: string): Promise<Step> {
    const status = { ...this.status, phase: 'Cleanup' as const, message };
    await this.save(
      withCondition(
        status,
        { type: SnapshotConditions.succeeded, status: 'False', reason, message },
        this.now(),
      ),
    );
    return NEXT;
  }

  /** The Cinder client of the credentials Secret, read once per pass. */
  async cinder(): Promise<CinderClient> {
    if (!this.cinderClient) {
      const ref = this.spec.openstack.credentialsSecretRef;
      if (!ref) {
        throw new CredentialsUnavailable('openstack.credentialsSecretRef names no Secret');
      }
      const access = await readCloudAccess(this.context.client, ref, this.spec.openstack.region);
      this.cinderClient = this.services.cinders.clientFor(access);
      // Only a run that once lacked credentials shows the condition; the next write records it.
      if (conditionOf(this.status, SnapshotConditions.credentialsReady)) {
        this.status = withCondition(
          this.status,
          {
            type: SnapshotConditions.credentialsReady,
            status: 'True',
            reason: 'Read',
            message: `Secret ${ref.namespace}/${ref.name} gives access`,
          },
          this.now(),
        );
      }
    }
    return this.cinderClient;
  }

  /** Kubernetes Events are advice: one that cannot be written is logged, never fails a pass. */
  async event(reason: string, message: string, warning = false): Promise<void> {
    try {
      await this.services.events.emit(
        this.context.client,
        { object: this.backup, job: this.name, reason, message, warning },
        this.now(),
      );
    } catch (error) {
      this.context.logger.warn?.(
        `event ${reason} for ${this.namespace}/${this.name} not recorded: ${(error as Error).message}`,
        'VolumeSnapshotBackup',
      );
    }
  }
}
