import type { V1EnvVar, V1Job } from '@kubernetes/client-node';
import { WELL_KNOWN_APPS } from '../crds/groupware-instance.js';
import type { GroupwareInstanceSpec } from '../crds/types.js';
import { type OccCommand, occJobName, occScript, shellQuote } from '../occ/occ-job.js';

/** One app to bring to its wanted state: the occ commands of one Job. */
export interface AppChange {
  appId: string;
  enabled: boolean;
  commands: OccCommand[];
  /** Secret keys the commands read at run time (see FROM_ENV). */
  env?: V1EnvVar[];
}

/**
 * Starts a string, inside a setting's JSON value, that the Job replaces with the environment
 * variable named after it: secrets reach the Job by secretKeyRef and never appear in its spec.
 */
export const FROM_ENV = '\u0000env:';

/** Purpose label value of the Jobs applying `spec.apps`. */
export const APPS_PURPOSE = 'apps';
/** Attempt number of an apps Job (1 for the first): the retry backoff grows with it. */
/** The app an apps Job changes. */
export const APP_LABEL = 'k8s.neutral.com/app';
export const ATTEMPT_ANNOTATION = 'k8s.neutral.com/occ-attempt';
export const APPS_RETRY_BASE_MS = 30_000;
export const APPS_RETRY_MAX_MS = 15 * 60_000;

const toggle = (appId: string, enabled: boolean): OccCommand => [
  enabled ? 'app:enable' : 'app:disable',
  appId,
];

const setting = (appId: string, key: string, value: string): OccCommand => [
  'config:app:set',
  appId,
  key,
  `--value=${value}`,
];

/** Every app the spec names, with the commands that bring it to the wanted state. */
export function appsWanted(spec: GroupwareInstanceSpec): AppChange[] {
  const apps = spec.apps ?? {};
  const changes: AppChange[] = [];
  for (const appId of WELL_KNOWN_APPS) {
    const enabled = apps[appId]?.enabled;
    if (enabled !== undefined) changes.push({ appId, enabled, commands: [toggle(appId, enabled)] });
  }
  const office = apps.richdocuments;
  if (office?.enabled !== undefined) {
    const commands = [toggle('richdocuments', office.enabled)];
    if (office.enabled && office.wopiUrl) {
      commands.push(setting('richdocuments', 'wopi_url', office.wopiUrl));
    }
    if (office.enabled && office.wopiAllowlist) {
      commands.push(setting('richdocuments', 'wopi_allowlist', office.wopiAllowlist.join(',')));
    }
    changes.push({ appId: 'richdocuments', enabled: office.enabled, commands });
  }
  const talk = apps.spreed;
  if (talk?.enabled !== undefined) {
    const commands = [toggle('spreed', talk.enabled)];
    if (talk.enabled && talk.stunServers) {
      commands.push(setting('spreed', 'stun_servers', JSON.stringify(talk.stunServers)));
    }
    const turn = talk.enabled ? (talk.turnServers ?? []) : [];
    if (turn.length > 0) {
      const servers = turn.map((server, index) => ({
        schemes: server.schemes,
        server: server.server,
        secret: `${FROM_ENV}TURN_SECRET_${index}`,
        protocols: server.protocols,
      }));
      commands.push(setting('spreed', 'turn_servers', JSON.stringify(servers)));
    }
    const env = turn.map((server, index) => ({
      name: `TURN_SECRET_${index}`,
      valueFrom: { secretKeyRef: { name: server.secretRef.name, key: server.secretRef.key } },
    }));
    changes.push({
      appId: 'spreed',
      enabled: talk.enabled,
      commands,
      ...(env.length > 0 ? { env } : {}),
    });
  }
  for (const custom of apps.custom ?? []) {
    changes.push({
      appId: custom.appId,
      enabled: custom.enabled,
      commands: [toggle(custom.appId, custom.enabled)],
    });
  }
  return changes;
}

/**
 * The changes not applied yet: the app's state in `status.apps` differs from the wanted one
 * or, for an app with settings, the Job of exactly these commands (its name is a hash of them)
 * has not succeeded. Creating an app's Job removes its other Jobs, so the one left is the
 * app's last change.
 */
export function pendingApps(
  instanceName: string,
  wanted: AppChange[],
  applied: Record<string, boolean> | undefined,
  jobs: (name: string) => V1Job | undefined,
): AppChange[] {
  return wanted.filter((change) => {
    if (applied?.[change.appId] !== change.enabled) return true;
    if (change.commands.length === 1) return false;
    return jobState(jobs(occJobName(instanceName, change.commands))) !== 'succeeded';
  });
}

export type JobState = 'missing' | 'running' | 'succeeded' | 'failed';

export function jobState(job: V1Job | undefined): JobState {
  if (!job) return 'missing';
  const conditions = job.status?.conditions ?? [];
  const has = (type: string) => conditions.some((c) => c.type === type && c.status === 'True');
  if (has('Complete') || (job.status?.succeeded ?? 0) > 0) return 'succeeded';
  if (has('Failed') || (job.status?.failed ?? 0) > 0) return 'failed';
  return 'running';
}

export function attemptOf(job: V1Job): number {
  const attempt = Number(job.metadata?.annotations?.[ATTEMPT_ANNOTATION]);
  return Number.isInteger(attempt) && attempt > 0 ? attempt : 1;
}

/** When a failed Job may be replaced: its failure time plus 30 s doubling per attempt, at most 15 min. */
export function retryAt(job: V1Job): number {
  const failed = job.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
  const since = failed?.lastTransitionTime ?? job.metadata?.creationTimestamp;
  const sinceMs = since ? new Date(since).getTime() : 0;
  const delay = Math.min(APPS_RETRY_BASE_MS * 2 ** (attemptOf(job) - 1), APPS_RETRY_MAX_MS);
  return sinceMs + delay;
}

const VALUE = '--value=';
/** The setting value at the end of a command, when it is plain text. */
const valueOf = (command: OccCommand): string | undefined => {
  const last = command.at(-1);
  return typeof last === 'string' && last.startsWith(VALUE) ? last.slice(VALUE.length) : undefined;
};

const usesEnv = (command: OccCommand) =>
  valueOf(command)?.includes(JSON.stringify(FROM_ENV).slice(1, -1)) ?? false;

const shellWord = (word: OccCommand[number]) =>
  typeof word === 'string' ? shellQuote(word) : `"$${word.env}"`;

/**
 * The Job's script: occScript's, except that a setting whose JSON value reads the environment
 * gets its value from a PHP one-liner (the image has PHP) that substitutes the variables.
 */
export function appsScript(commands: readonly OccCommand[]): string {
  if (!commands.some(usesEnv)) return occScript(commands);
  return ['set -e', ...commands.map(scriptLine)].join('\n');
}

function scriptLine(command: OccCommand): string {
  if (!usesEnv(command)) return occScript([command]).split('\n')[1];
  const template = Buffer.from(valueOf(command)!).toString('base64');
  const php =
    `$v=json_decode(base64_decode('${template}'),true);` +
    'array_walk_recursive($v,function(&$x){if(is_string($x)&&strncmp($x,"\\0env:",5)===0){$x=getenv(substr($x,5));}});' +
    'echo json_encode($v);';
  const words = command.slice(0, -1).map(shellWord).join(' ');
  return `php /var/www/html/occ --no-interaction ${words} --value="$(php -r ${shellQuote(php)})"`;
}
