import { Injectable } from '@nestjs/common';
import { CoreKinds, KubeApiError, type KubeClient, type KubeObject } from '@platform/kube';

export interface RunEvent {
  /** The object the event is about (a VolumeBackup or VolumeRestore). */
  object: KubeObject;
  /** The Job the event is about; with the reason it names the event. */
  job: string;
  reason: string;
  message: string;
  warning?: boolean;
}

/** Events already created by this process, so reconciles of the same state post nothing. */
const REMEMBERED = 5_000;

/**
 * Kubernetes Events (core v1: what `kubectl describe` and `kubectl get events` show, and the
 * kind every API server and the test server serve) for backup, check, restore-test and restore
 * runs. Each event's name comes from its Job and reason, so a restarted operator that meets the
 * same run again gets 409 and posts no duplicate. Events are advice: a refused write is logged
 * by the caller's logger and never fails a reconcile.
 */
@Injectable()
export class RunEvents {
  private readonly sent = new Set<string>();

  async emit(client: KubeClient, event: RunEvent, now: Date): Promise<void> {
    const namespace = event.object.metadata.namespace ?? '';
    const name = eventName(event.job, event.reason);
    const key = `${namespace}/${name}`;
    if (this.sent.has(key)) return;
    const time = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
    try {
      await client.create(CoreKinds.Event, {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: {
          apiVersion: event.object.apiVersion,
          kind: event.object.kind,
          name: event.object.metadata.name,
          namespace,
          uid: event.object.metadata.uid,
        },
        reason: event.reason,
        message: event.message,
        type: event.warning ? 'Warning' : 'Normal',
        source: { component: 'backup-operator' },
        reportingComponent: 'backup-operator',
        firstTimestamp: time,
        lastTimestamp: time,
        count: 1,
      } as KubeObject);
    } catch (error) {
      if (!(error instanceof KubeApiError && error.status === 409)) throw error;
    }
    this.remember(key);
  }

  private remember(key: string): void {
    this.sent.add(key);
    if (this.sent.size > REMEMBERED) this.sent.delete(this.sent.values().next().value!);
  }
}

/** `<job>.<reason>` in lower case: unique per run and outcome, and a valid object name. */
export function eventName(job: string, reason: string): string {
  return `${job}.${reason.toLowerCase()}`.slice(0, 253);
}
