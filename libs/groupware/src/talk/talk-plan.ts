import type { GroupwareInstance, TalkServerStatus } from '../crds/types.js';

/** What one instance has registered, as the server's status records it. */
export type Registration = NonNullable<TalkServerStatus['registrations']>[number];

/**
 * What to do about one instance:
 * - `register`: a Ready instance running Talk; registered unless `previous` already matches.
 * - `keep`: registered, still running Talk but not Ready (updating, failing): left as is.
 * - `unregister`: registered, and Talk was turned off or the server is being deleted.
 * - `forget`: registered with an instance that is gone (or going): nothing left to run against.
 */
export type InstanceAction =
  | { type: 'register'; key: string; instance: GroupwareInstance; previous?: Registration }
  | { type: 'keep'; key: string; instance: GroupwareInstance; previous: Registration }
  | { type: 'unregister'; key: string; instance: GroupwareInstance; previous: Registration }
  | { type: 'forget'; key: string; previous: Registration };

export function instanceKey(instance: GroupwareInstance): string {
  return `${instance.metadata.namespace}/${instance.metadata.name}`;
}

function runsTalk(instance: GroupwareInstance): boolean {
  return instance.spec?.apps?.spreed?.enabled === true;
}

/**
 * The action for every instance that runs Talk or has the server registered, in key order.
 * `deleting`: the server is being deleted, so every registration goes.
 */
export function planInstances(
  instances: readonly GroupwareInstance[],
  registrations: readonly Registration[],
  deleting: boolean,
): InstanceAction[] {
  const registered = new Map(registrations.map((entry) => [entry.instance, entry]));
  const live = new Map(
    instances
      .filter((instance) => !instance.metadata.deletionTimestamp)
      .map((instance) => [instanceKey(instance), instance]),
  );
  const keys = new Set([...registered.keys(), ...live.keys()]);
  const actions: InstanceAction[] = [];
  for (const key of [...keys].sort()) {
    const previous = registered.get(key);
    const instance = live.get(key);
    if (!instance) {
      if (previous) actions.push({ type: 'forget', key, previous });
      continue;
    }
    if (deleting || !runsTalk(instance)) {
      if (previous) actions.push({ type: 'unregister', key, instance, previous });
      continue;
    }
    if (instance.status?.phase === 'Ready') {
      actions.push({ type: 'register', key, instance, previous });
    } else if (previous) {
      actions.push({ type: 'keep', key, instance, previous });
    }
  }
  return actions;
}

/** Whether a registration already is what `wanted` asks for. */
export function sameRegistration(
  previous: Registration | undefined,
  wanted: Registration,
): boolean {
  return (
    previous !== undefined &&
    previous.url === wanted.url &&
    (previous.verifyTls ?? true) === (wanted.verifyTls ?? true) &&
    previous.secretVersion === wanted.secretVersion
  );
}
