import { CoreKinds, isKubeApiError, type KubeObject, type ReconcileContext } from '@platform/kube';

/** An outcome of one occ Job of a Talk server. */
export interface TalkEvent {
  /** `Registered`, `Unregistered` (Normal) or `OccFailed` (Warning). */
  reason: 'Registered' | 'Unregistered' | 'OccFailed';
  job: string;
  message: string;
}

/** Events of cluster-scoped objects live in `default`, where `kubectl describe` looks. */
const EVENT_NAMESPACE = 'default';
const REMEMBERED = 5_000;

/**
 * Kubernetes Events on a SignalingServer or RecordingServer, one per Job outcome. Each event's
 * name comes from the server, the Job and the reason, so meeting the same outcome again (the
 * next pass, a restarted operator) gets 409 and posts nothing twice. Events are advice: a
 * refused one is logged, never failing the reconcile.
 */
export class TalkEvents {
  private readonly sent = new Set<string>();

  async emit(context: ReconcileContext, server: KubeObject, events: TalkEvent[]): Promise<void> {
    for (const event of events) {
      const name = `${server.metadata.name}.${event.job}.${event.reason.toLowerCase()}`.slice(
        0,
        253,
      );
      if (this.sent.has(name)) continue;
      try {
        await context.client.create(
          CoreKinds.Event,
          eventObject(server, name, event, context.clock.now()),
        );
      } catch (error) {
        if (!isKubeApiError(error, 409)) {
          context.logger.warn(`event ${name} refused: ${(error as Error).message}`);
          continue;
        }
      }
      this.sent.add(name);
      if (this.sent.size > REMEMBERED) this.sent.delete(this.sent.values().next().value!);
    }
  }
}

function eventObject(server: KubeObject, name: string, event: TalkEvent, now: Date): KubeObject {
  const time = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: EVENT_NAMESPACE },
    involvedObject: {
      apiVersion: server.apiVersion,
      kind: server.kind,
      name: server.metadata.name,
      uid: server.metadata.uid,
    },
    reason: event.reason,
    message: event.message,
    type: event.reason === 'OccFailed' ? 'Warning' : 'Normal',
    source: { component: 'groupware-operator' },
    reportingComponent: 'groupware-operator',
    firstTimestamp: time,
    lastTimestamp: time,
    count: 1,
  } as KubeObject;
}
