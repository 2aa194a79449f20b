import { DynamicModule, Module, type Provider } from '@nestjs/common';
import { type OperatorTiming, OperatorRuntimeModule } from '@platform/kube';
import { OutboundModule } from '@platform/outbound';
import { S3BackupMetrics, S3BackupReconciler, S3BackupReporting } from './s3-backup/index.js';
import { RunEvents } from './volume-backup/backup-events.js';
import { VolumeBackupMetrics } from './volume-backup/backup-metrics.js';
import { BackupReporting } from './volume-backup/backup-reporting.js';
import { BackupWebhookNotifier } from './volume-backup/backup-webhooks.js';
import { RemoteClusterClients } from './volume-backup/target-cluster.js';
import { VolumeBackupReconciler } from './volume-backup/volume-backup.reconciler.js';
import { VolumeRestoreReconciler } from './volume-restore/index.js';

export interface BackupOperatorOptions {
  /** Extra providers, e.g. a KubeClient (replacing the one built from the environment). */
  providers?: Provider[];
  timing?: Partial<OperatorTiming>;
}

/** The backup operator: the VolumeBackup, VolumeRestore and S3Backup reconcilers on the operator runtime. */
@Module({})
export class BackupOperatorModule {
  static forRoot(options: BackupOperatorOptions = {}): DynamicModule {
    return {
      module: BackupOperatorModule,
      imports: [
        OperatorRuntimeModule.forRoot({
          name: 'backup-operator',
          reconcilers: [VolumeBackupReconciler, VolumeRestoreReconciler, S3BackupReconciler],
          imports: [OutboundModule],
          providers: [
            RemoteClusterClients,
            BackupWebhookNotifier,
            BackupReporting,
            RunEvents,
            VolumeBackupMetrics,
            S3BackupReporting,
            S3BackupMetrics,
            ...(options.providers ?? []),
          ],
          timing: options.timing,
        }),
      ],
    };
  }
}
