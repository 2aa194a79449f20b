import {
  ApiException,
  type KubeConfig,
  type KubernetesObject,
  type V1ObjectMeta,
  Watch,
} from '@kubernetes/client-node';

export const WIDGETS = {
  group: 'example.neutral.com',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
};

export interface Widget extends KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: V1ObjectMeta;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

export function widget(
  name: string,
  spec: Record<string, unknown> = { size: 1 },
  labels?: Record<string, string>,
): Widget {
  return {
    apiVersion: 'example.neutral.com/v1',
    kind: 'Widget',
    metadata: { name, namespace: 'team-a', ...(labels ? { labels } : {}) },
    spec,
  };
}

/** The rejection of a client-node call, with the Status object the server answered. */
export interface StatusBody {
  kind: string;
  apiVersion: string;
  status: string;
  message: string;
  reason: string;
  code: number;
  details?: { name?: string; group?: string; kind?: string };
}

export async function failure(call: Promise<unknown>): Promise<{ code: number; body: StatusBody }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiException) {
      // client-node hands the body over as text
      const body: unknown = error.body;
      return {
        code: error.code,
        body: (typeof body === 'string' ? JSON.parse(body) : body) as StatusBody,
      };
    }
    throw error;
  }
  throw new Error('the call succeeded');
}

export interface WatchEvent {
  type: string;
  object: Widget & Partial<Omit<StatusBody, 'kind' | 'apiVersion' | 'status'>>;
}

/** A client-node watch collecting its events. */
export class CollectedWatch {
  readonly events: WatchEvent[] = [];
  readonly ended: Promise<unknown>;
  private controller?: AbortController;
  private waiters: Array<() => void> = [];

  private constructor(
    config: KubeConfig,
    path: string,
    query: Record<string, string | number | boolean>,
    started: (controller: AbortController) => void,
  ) {
    this.ended = new Promise((resolve) => {
      void new Watch(config)
        .watch(
          path,
          query,
          (type, object) => {
            this.events.push({ type, object });
            this.waiters.forEach((wake) => wake());
          },
          (error) => resolve(error ?? 'ended'),
        )
        .then(started);
    });
  }

  static async open(
    config: KubeConfig,
    path: string,
    query: Record<string, string | number | boolean> = {},
  ): Promise<CollectedWatch> {
    let resolveStarted: (controller: AbortController) => void = () => undefined;
    const started = new Promise<AbortController>((resolve) => (resolveStarted = resolve));
    const watch = new CollectedWatch(config, path, query, resolveStarted);
    watch.controller = await started;
    return watch;
  }

  /** Resolves once `count` events of the wanted type arrived. */
  async waitFor(count: number, type?: string, timeoutMs = 5000): Promise<WatchEvent[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const matching = this.events.filter((event) => !type || event.type === type);
      if (matching.length >= count) return matching;
      if (Date.now() > deadline) {
        throw new Error(
          `expected ${count} ${type ?? ''} events, got ${JSON.stringify(this.events)}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      this.waiters = [];
    }
  }

  stop(): void {
    this.controller?.abort();
  }
}
