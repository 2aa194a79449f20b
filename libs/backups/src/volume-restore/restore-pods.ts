import { CoreKinds, type KubeClient, type KubeObject } from '@platform/kube';
import type { RestoreProgressStatus } from '../api/types.js';
import { RESTIC_CONTAINER } from '../render/pod.js';
import {
  parseRestoreProgress,
  parseRestoreSummary,
  type RestoreSummary,
} from '../render/volume-restore.js';
import { failureExcerpt, resticTerminationMessage } from '../volume-backup/job-termination.js';

/** restic prints a status line about once a second: the last twenty lines hold the latest. */
const PROGRESS_TAIL_LINES = 20;

type PodObject = KubeObject<unknown, { phase?: string }>;

/**
 * What a restore Job's pods say: the progress restic logs while it runs, its summary once it
 * succeeded and its last words when it failed. Every read is best effort: a pod that is gone or
 * not started yet leaves the status as it was.
 */
export class RestorePods {
  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
  ) {}

  /** The latest progress restic logged in the Job's running pod. */
  async progress(job: string): Promise<RestoreProgressStatus | undefined> {
    try {
      const { items } = await this.client.list<PodObject>(CoreKinds.Pod, this.namespace, {
        labelSelector: `job-name=${job}`,
      });
      const pod = items
        .filter((candidate) => candidate.status?.phase === 'Running')
        .sort((a, b) => created(b) - created(a))[0];
      if (!pod?.metadata.name) return undefined;
      const log = await this.client.podLog(this.namespace, pod.metadata.name, {
        container: RESTIC_CONTAINER,
        tailLines: PROGRESS_TAIL_LINES,
      });
      return parseRestoreProgress(log);
    } catch {
      // The pod can end or vanish between the list and the log read; the next pass reads again.
      return undefined;
    }
  }

  /** The summary the restore container wrote to its termination message on success. */
  async summary(job: string): Promise<RestoreSummary | undefined> {
    return parseRestoreSummary(
      await resticTerminationMessage(this.client, this.namespace, job, true),
    );
  }

  /** The restic error that ended a failed attempt, if a pod still shows it. */
  async failure(job: string): Promise<string | undefined> {
    return failureExcerpt(await resticTerminationMessage(this.client, this.namespace, job, false));
  }
}

function created(pod: KubeObject): number {
  const at = pod.metadata.creationTimestamp;
  return at ? new Date(at).getTime() || 0 : 0;
}

/** The figures a finished restore reports: everything it restored, out of everything it restored. */
export function finalProgress(
  summary: RestoreSummary | undefined,
  last: RestoreProgressStatus | undefined,
): RestoreProgressStatus {
  if (summary) {
    return {
      filesTotal: summary.filesRestored,
      filesRestored: summary.filesRestored,
      bytesTotal: summary.bytesRestored,
      bytesRestored: summary.bytesRestored,
      percentComplete: 100,
    };
  }
  return {
    ...last,
    filesRestored: last?.filesTotal ?? last?.filesRestored ?? 0,
    bytesRestored: last?.bytesTotal ?? last?.bytesRestored ?? 0,
    percentComplete: 100,
  };
}
