import type { V1CronJob, V1EnvVar, V1Job, V1PodSpec } from '@kubernetes/client-node';
import type { GroupwareInstance } from '../crds/types.js';
import { instanceObjectNames, ownedMetadata } from './instance-names.js';

/*
 * Data backups copy the instance's data directory to S3 with rclone (the official
 * rclone/rclone image): a plain mirror needs no repository password beyond the two S3 keys the
 * spec's credentialsSecret holds, and the copy stays readable with any S3 tool.
 */
export const RCLONE_IMAGE = 'rclone/rclone:1.68.2';

/** The data directory on the chart's claim, as the chart mounts it. */
const DATA_SUBPATH = 'data';
const MOUNT = '/data';
/** rclone's remote named by the RCLONE_CONFIG_BACKUP_* variables. */
const REMOTE = 'backup';

/** Where an instance's backup lives: `<bucket>/<namespace>/<name>`. */
export function backupPath(instance: GroupwareInstance): string {
  const bucket = instance.spec!.backups.data.bucket;
  return `${REMOTE}:${bucket}/${instance.metadata.namespace}/${instance.metadata.name}`;
}

function rcloneEnv(instance: GroupwareInstance): V1EnvVar[] {
  const data = instance.spec!.backups.data;
  const secret = data.credentialsSecret!;
  const plain = (name: string, value: string | undefined): V1EnvVar[] =>
    value === undefined ? [] : [{ name, value }];
  return [
    { name: 'RCLONE_CONFIG_BACKUP_TYPE', value: 's3' },
    { name: 'RCLONE_CONFIG_BACKUP_PROVIDER', value: 'Other' },
    ...plain('RCLONE_CONFIG_BACKUP_ENDPOINT', data.endpoint),
    ...plain('RCLONE_CONFIG_BACKUP_REGION', data.region),
    {
      name: 'RCLONE_CONFIG_BACKUP_ACCESS_KEY_ID',
      valueFrom: { secretKeyRef: { name: secret, key: 'accessKey' } },
    },
    {
      name: 'RCLONE_CONFIG_BACKUP_SECRET_ACCESS_KEY',
      valueFrom: { secretKeyRef: { name: secret, key: 'secretKey' } },
    },
  ];
}

/** rclone's exit status for "directory not found". */
const DIRECTORY_NOT_FOUND = 3;

/** A pod next to the instance's (its claim is usually ReadWriteOnce) running rclone. */
function rclonePod(
  instance: GroupwareInstance,
  run: { args: string[] } | { script: string; env: V1EnvVar[] },
  mountData: boolean,
): V1PodSpec {
  const name = instance.metadata.name!;
  return {
    restartPolicy: 'Never',
    affinity: mountData
      ? {
          podAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              {
                labelSelector: {
                  matchLabels: {
                    'app.kubernetes.io/name': 'nextcloud',
                    'app.kubernetes.io/instance': name,
                  },
                },
                topologyKey: 'kubernetes.io/hostname',
              },
            ],
          },
        }
      : undefined,
    containers: [
      {
        name: 'rclone',
        image: RCLONE_IMAGE,
        ...('args' in run ? { args: run.args } : { command: ['/bin/sh', '-c', run.script] }),
        env: [...rcloneEnv(instance), ...('env' in run ? run.env : [])],
        volumeMounts: mountData
          ? [{ name: 'data', mountPath: MOUNT, subPath: DATA_SUBPATH, readOnly: true }]
          : undefined,
      },
    ],
    volumes: mountData
      ? [
          {
            name: 'data',
            persistentVolumeClaim: { claimName: instanceObjectNames(name).claim, readOnly: true },
          },
        ]
      : undefined,
  };
}

/** The CronJob `<name>-data-backup` mirroring the data directory on `backups.data.schedule`. */
export function dataBackupCronJob(instance: GroupwareInstance): V1CronJob {
  const name = instance.metadata.name!;
  const data = instance.spec!.backups.data;
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: ownedMetadata(instance, instanceObjectNames(name).dataBackup),
    spec: {
      schedule: data.schedule,
      concurrencyPolicy: 'Forbid',
      jobTemplate: {
        spec: {
          backoffLimit: 2,
          template: {
            spec: rclonePod(
              instance,
              { args: ['sync', MOUNT, `${backupPath(instance)}/data`] },
              true,
            ),
          },
        },
      },
    },
  };
}

/** The Job `<name>-data-cleanup` deleting the instance's backup data (deleteOnCleanup). */
export function dataCleanupJob(instance: GroupwareInstance): V1Job {
  const name = instance.metadata.name!;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: ownedMetadata(instance, instanceObjectNames(name).dataCleanup),
    spec: {
      backoffLimit: 2,
      // Nothing backed up yet is nothing to delete, not a failure.
      template: {
        spec: rclonePod(
          instance,
          {
            // The path goes through the environment: the bucket name is the user's text.
            script: `rclone purge "$BACKUP_PATH" || [ $? -eq ${DIRECTORY_NOT_FOUND} ]`,
            env: [{ name: 'BACKUP_PATH', value: backupPath(instance) }],
          },
          false,
        ),
      },
    },
  };
}
