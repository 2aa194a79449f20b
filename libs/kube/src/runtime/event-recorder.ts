import { randomBytes } from 'node:crypto';
import { CoreKinds, type KubeObject } from './kinds.js';
import type { KubeClient } from './kube-client.js';

export interface RecordedEvent {
  /** The object the event is about. */
  object: KubeObject;
  /** CamelCase cause, e.g. a phase (`Ready`) or a failure (`ReleaseFailed`). */
  reason: string;
  message: string;
  warning?: boolean;
}

/**
 * Posts core v1 Events (what `kubectl describe` and `kubectl get events` show) about an
 * operator's objects. Names follow the API server's own pattern `<object>.<hex time>` plus a
 * random part, since one instant may see several events. Events are advice: a refused write is
 * logged by the caller and never fails a reconcile.
 */
export class EventRecorder {
  constructor(private readonly component: string) {}

  async record(client: KubeClient, event: RecordedEvent, now: Date): Promise<void> {
    const { object } = event;
    const namespace = object.metadata.namespace ?? 'default';
    const time = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const name = `${object.metadata.name}.${now.getTime().toString(16)}${randomBytes(4).toString('hex')}`;
    await client.create(CoreKinds.Event, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: {
        apiVersion: object.apiVersion,
        kind: object.kind,
        name: object.metadata.name,
        namespace: object.metadata.namespace,
        uid: object.metadata.uid,
        resourceVersion: object.metadata.resourceVersion,
      },
      reason: event.reason,
      message: event.message,
      type: event.warning ? 'Warning' : 'Normal',
      source: { component: this.component },
      reportingComponent: this.component,
      firstTimestamp: time,
      lastTimestamp: time,
      count: 1,
    } as KubeObject);
  }
}
