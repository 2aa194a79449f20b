import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { CoreKinds, type KubeObject, OperatorRuntime } from '@platform/kube';
import { BackupLabels } from '../render/volume-backup.js';
import { VolumeBackupReconciler } from './volume-backup.reconciler.js';

/**
 * Queues a VolumeBackup when one of its Jobs changes. The CronJob controller creates those
 * Jobs and makes the CronJob their controller, so the runtime's ownerReference mapping does
 * not lead to the VolumeBackup; the Jobs' label does. (The CronJob's own status updates, which
 * do map, follow a Job's end only after the CronJob controller's next sync.)
 */
@Injectable()
export class BackupJobEvents implements OnApplicationBootstrap {
  constructor(
    private readonly runtime: OperatorRuntime,
    private readonly reconciler: VolumeBackupReconciler,
  ) {}

  onApplicationBootstrap(): void {
    const controller = this.runtime.controllers.find((c) => c.reconciler === this.reconciler);
    const jobs = this.runtime.informers<KubeObject>(CoreKinds.Job, this.reconciler.ownsSelector);
    if (!controller || !jobs) return;
    jobs.onEvent((event) => {
      const { namespace, labels } = event.object.metadata;
      const owner = labels?.[BackupLabels.volumeBackup];
      if (namespace && owner && controller.isActive) controller.queue.add(`${namespace}/${owner}`);
    });
  }
}
