import { badRequest, notFound } from './errors.js';
import type { KindStore } from './kind-store.js';
import { parseEntry } from './objects.js';

/** Container logs set by tests, served like the kubelet's through the pods/log subresource. */
export class PodLogs {
  /** "<namespace>/<pod>" -> container ('' when set without one) -> text */
  private readonly logs = new Map<string, Map<string, string>>();

  set(namespace: string, pod: string, text: string, container = ''): void {
    const key = `${namespace}/${pod}`;
    let containers = this.logs.get(key);
    if (!containers) this.logs.set(key, (containers = new Map()));
    containers.set(container, text);
  }

  read(
    pods: KindStore,
    namespace: string,
    pod: string,
    container?: string,
    tailLines?: string,
  ): string {
    const entry = pods.get(namespace, pod);
    const containers = this.logs.get(`${namespace}/${pod}`);
    if (!entry && !containers) throw notFound(pods.registration, pod);
    const names = entry
      ? containerNames(parseEntry(entry).spec)
      : [...(containers?.keys() ?? [])].filter((name) => name !== '');
    let target = container;
    if (!target) {
      if (names.length > 1) {
        throw badRequest(
          `a container name must be specified for pod ${pod}, choose one of: [${names.join(' ')}]`,
        );
      }
      target = names[0] ?? '';
    } else if (entry && !names.includes(target)) {
      throw badRequest(`container ${target} is not valid for pod ${pod}`);
    }
    return tail(containers?.get(target) ?? containers?.get('') ?? '', tailLines);
  }
}

function containerNames(spec: unknown): string[] {
  const containers = (spec as { containers?: Array<{ name?: string }> } | undefined)?.containers;
  return (containers ?? []).map((container) => container.name ?? '');
}

function tail(text: string, tailLines: string | undefined): string {
  if (tailLines === undefined) return text;
  const count = Number(tailLines);
  if (!Number.isInteger(count) || count < 0)
    throw badRequest('tailLines must be a non-negative integer');
  const lines = text.split('\n');
  const trailingNewline = text.endsWith('\n');
  if (trailingNewline) lines.pop();
  const kept = count === 0 ? [] : lines.slice(-count);
  return kept.join('\n') + (trailingNewline && kept.length > 0 ? '\n' : '');
}
