import { describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { Informer } from './informer.js';
import { CoreKinds, type KubeObject } from './kinds.js';
import type { KubeClient, WatchEnd, WatchEvent } from './kube-client.js';

const managedFields = [
  {
    manager: 'kubectl',
    operation: 'Apply',
    apiVersion: 'batch/v1',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:spec': { 'f:schedule': {} } },
  },
];

function cronJob(name: string, resourceVersion: string): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name, namespace: 'team-a', resourceVersion, managedFields },
    spec: { schedule: '0 3 * * *' },
  };
}

/** Lists one CronJob, then its watch delivers another; both carry server-side apply fields. */
function listingClient(): KubeClient {
  return {
    list: async () => ({ items: [cronJob('listed', '10')], resourceVersion: '10' }),
    watch: (
      _kind: unknown,
      _namespace: unknown,
      _options: unknown,
      onEvent: (event: WatchEvent) => void,
    ) => {
      let stop!: (end: WatchEnd) => void;
      const done = new Promise<WatchEnd>((resolve) => (stop = resolve));
      setImmediate(() => onEvent({ type: 'ADDED', object: cronJob('watched', '11') }));
      return { done, stop: () => stop({ reason: 'stopped' }) };
    },
  } as unknown as KubeClient;
}

describe('Informer cache', () => {
  it('keeps objects without their managedFields, listed or watched', async () => {
    const informer = new Informer(listingClient(), CoreKinds.CronJob, {
      logger: new Logger('informer-spec'),
    });
    const added: KubeObject[] = [];
    informer.onEvent((event) => added.push(event.object));
    informer.start();
    while (added.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    await informer.stop();

    expect(added.map((object) => object.metadata.name)).toEqual(['listed', 'watched']);
    for (const name of ['listed', 'watched']) {
      const cached = informer.store.get('team-a', name)!;
      expect(cached.metadata).not.toHaveProperty('managedFields');
      expect(cached.spec).toEqual({ schedule: '0 3 * * *' });
    }
  });
});
