import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreKinds, EventRecorder, KubeClient, type KubeObject } from '@platform/kube';
import { FakeKubeApiServer } from '@platform/testing';

type Event = KubeObject & {
  involvedObject: Record<string, unknown>;
  reason: string;
  message: string;
  type: string;
  source: { component: string };
  firstTimestamp: string;
  count: number;
};

describe('EventRecorder', () => {
  let server: FakeKubeApiServer;
  let client: KubeClient;

  beforeAll(async () => {
    server = await FakeKubeApiServer.start();
    client = KubeClient.fromKubeConfig(server.kubeConfig());
  });

  afterAll(async () => {
    await server.stop();
  });

  it('posts core v1 Events about an object, several in one instant', async () => {
    const recorder = new EventRecorder('test-operator');
    const object: KubeObject = {
      apiVersion: 'test.k8s.neutral.com/v1',
      kind: 'Widget',
      metadata: { name: 'first', namespace: 'team-a', uid: 'uid-1', resourceVersion: '7' },
    };
    const now = new Date('2030-01-01T00:00:00.123Z');
    await recorder.record(
      client,
      { object, reason: 'Ready', message: 'phase Creating -> Ready' },
      now,
    );
    await recorder.record(
      client,
      { object, reason: 'ReleaseFailed', message: 'upgrade failed', warning: true },
      now,
    );
    const events = server
      .list<Event>(CoreKinds.Event, 'team-a')
      .sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion));
    expect(events).toHaveLength(2);
    expect(events[0]!.metadata.name).toMatch(/^first\.[0-9a-f]+$/);
    expect(events[0]!.metadata.name).not.toBe(events[1]!.metadata.name);
    expect(events[0]).toMatchObject({
      involvedObject: {
        apiVersion: 'test.k8s.neutral.com/v1',
        kind: 'Widget',
        name: 'first',
        namespace: 'team-a',
        uid: 'uid-1',
      },
      reason: 'Ready',
      message: 'phase Creating -> Ready',
      type: 'Normal',
      source: { component: 'test-operator' },
      firstTimestamp: '2030-01-01T00:00:00Z',
      count: 1,
    });
    expect(events[1]).toMatchObject({ reason: 'ReleaseFailed', type: 'Warning' });
  });
});
