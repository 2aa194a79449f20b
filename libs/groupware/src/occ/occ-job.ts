import { createHash } from 'node:crypto';
import type { V1EnvVar, V1Job } from '@kubernetes/client-node';
import type { GroupwareInstance } from '../crds/types.js';

/*
 * Jobs that run Nextcloud's `occ` against an instance: app changes and the registration of
 * Talk signaling and recording servers. They run the instance's own image on its own volume,
 * as the web server's user, next to a pod of the instance (the volume is usually
 * ReadWriteOnce, so only that node can mount it). The chart is installed with
 * `fullnameOverride` set to the instance name, so its claim is `<name>-nextcloud` and its pods
 * carry `app.kubernetes.io/instance: <name>`. An instance without persistence keeps its files
 * in the pod alone; occ Jobs cannot reach them, which is why apps need persistence.
 */

/**
 * A value the shell takes from the Job's environment (`"$NAME"`), so that a secret passed
 * through `env` from a Secret never appears in the Job's spec.
 */
export interface EnvReference {
  readonly env: string;
}

export function envReference(name: string): EnvReference {
  if (!/^[A-Z_][A-Z0-9_]*$/.test(name)) throw new Error(`not an environment variable: ${name}`);
  return { env: name };
}

/** An occ command line without `php occ`, e.g. `['app:enable', 'calendar']`. */
export type OccCommand = readonly (string | EnvReference)[];

export const OccLabels = {
  /** Name of the GroupwareInstance the Job works on. */
  instance: 'k8s.neutral.com/instance',
  /** What the Job does: `apps`, `signaling`, `recording`. */
  purpose: 'k8s.neutral.com/occ-purpose',
} as const;

/** The web server's user and group in the Nextcloud images (www-data). */
const WWW_DATA = 33;
const KUBE_NAME_MAX = 63;
const HASH_LENGTH = 10;

/** The Nextcloud claim's subpaths as the chart mounts them. */
const MOUNTS = [
  ['html', '/var/www/html'],
  ['config', '/var/www/html/config'],
  ['data', '/var/www/html/data'],
  ['custom_apps', '/var/www/html/custom_apps'],
  ['themes', '/var/www/html/themes'],
] as const;

/**
 * `<name>-occ-<short hash of the command list>`, within the 63 characters a Job name may use.
 * `revision` stands for what the commands read but do not show (the version of a Secret they
 * take a value from): a new revision is a new Job.
 */
export function occJobName(
  instanceName: string,
  commands: readonly OccCommand[],
  revision?: string,
): string {
  const hash = createHash('sha256')
    .update(JSON.stringify(revision === undefined ? commands : [commands, revision]))
    .digest('hex')
    .slice(0, HASH_LENGTH);
  const suffix = `-occ-${hash}`;
  return `${instanceName.slice(0, KUBE_NAME_MAX - suffix.length).replace(/-+$/, '')}${suffix}`;
}

/** Quotes one word for /bin/sh. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function shellWord(argument: string | EnvReference): string {
  return typeof argument === 'string' ? shellQuote(argument) : `"$${argument.env}"`;
}

/** The script the Job runs: every command in order, stopping at the first failure. */
export function occScript(commands: readonly OccCommand[]): string {
  const lines = commands.map(
    (command) => `php /var/www/html/occ --no-interaction ${command.map(shellWord).join(' ')}`,
  );
  return ['set -e', ...lines].join('\n');
}

export interface OccJobInput {
  instance: GroupwareInstance;
  purpose: string;
  commands: readonly OccCommand[];
  /** The instance's image, e.g. `nextcloud:29.0.16`. */
  image: string;
  /** The environment of the instance's pods that its config files read (database, redis, s3). */
  env?: V1EnvVar[];
  labels?: Record<string, string>;
  /** See occJobName. */
  revision?: string;
}

/** A Job running `commands` through occ, owned by the instance. */
export function occJob(input: OccJobInput): V1Job {
  const { instance } = input;
  const name = instance.metadata.name!;
  const labels = {
    'app.kubernetes.io/managed-by': 'groupware-operator',
    [OccLabels.instance]: name,
    [OccLabels.purpose]: input.purpose,
    ...input.labels,
  };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: occJobName(name, input.commands, input.revision),
      namespace: instance.metadata.namespace,
      labels,
      ownerReferences: [
        {
          apiVersion: instance.apiVersion,
          kind: instance.kind,
          name,
          uid: instance.metadata.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      // The operator retries a failed Job itself, with backoff, as a new Job.
      backoffLimit: 0,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          securityContext: { runAsUser: WWW_DATA, runAsGroup: WWW_DATA, fsGroup: WWW_DATA },
          affinity: {
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
          },
          containers: [
            {
              name: 'occ',
              image: input.image,
              command: ['/bin/sh', '-c', occScript(input.commands)],
              env: input.env,
              volumeMounts: MOUNTS.map(([subPath, mountPath]) => ({
                name: 'nextcloud-main',
                mountPath,
                subPath,
              })),
            },
          ],
          volumes: [
            { name: 'nextcloud-main', persistentVolumeClaim: { claimName: `${name}-nextcloud` } },
          ],
        },
      },
    },
  };
}
