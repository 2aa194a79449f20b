import type { V1PodTemplateSpec } from '@kubernetes/client-node';
import type { AccessMode, KubeObject } from '../api/types.js';
import { type CronJob, objectMeta, type PersistentVolumeClaim, type RenderOptions } from './pod.js';

/** What makes one of a backup resource's CronJobs. */
export interface ScheduledJobInput {
  name: string;
  /** On the CronJob, its Jobs and (through the template) their pods. */
  labels: Record<string, string>;
  schedule: string;
  suspended: boolean;
  jobConfig: { keepSuccessfulJobs: number; keepFailedJobs: number };
  backoffLimit: number;
  template: V1PodTemplateSpec;
}

/** A CronJob that never runs two of its Jobs at once and keeps the history the spec asks for. */
export function scheduledJob(
  owner: KubeObject,
  options: RenderOptions,
  input: ScheduledJobInput,
): CronJob {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: objectMeta(owner, input.name, input.labels, options),
    spec: {
      schedule: input.schedule,
      suspend: input.suspended,
      concurrencyPolicy: 'Forbid',
      successfulJobsHistoryLimit: input.jobConfig.keepSuccessfulJobs,
      failedJobsHistoryLimit: input.jobConfig.keepFailedJobs,
      jobTemplate: {
        metadata: { labels: { ...input.labels } },
        spec: { backoffLimit: input.backoffLimit, template: input.template },
      },
    },
  };
}

export function volumeClaim(
  owner: KubeObject,
  name: string,
  labels: Record<string, string>,
  storage: { size: string; storageClass?: string; accessMode: AccessMode },
  options: RenderOptions,
): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: objectMeta(owner, name, labels, options),
    spec: {
      accessModes: [storage.accessMode],
      resources: { requests: { storage: storage.size } },
      ...(storage.storageClass ? { storageClassName: storage.storageClass } : {}),
    },
  };
}
