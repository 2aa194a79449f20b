import { CoreKinds, type KubeClient, type KubeObject } from '@platform/kube';
import { RESTIC_CONTAINER } from '../render/pod.js';

interface TerminatedState {
  exitCode?: number;
  message?: string;
  finishedAt?: string | Date;
}

type ContainerStatuses = Array<{ name: string; state?: { terminated?: TerminatedState } }>;
type PodObject = KubeObject<
  unknown,
  { containerStatuses?: ContainerStatuses; initContainerStatuses?: ContainerStatuses }
>;

/** A container of a Job's pods: the restic container, or an init container by its name. */
export interface JobContainer {
  name: string;
  init?: boolean;
}

/**
 * The termination message of the Job's restic container (or `container`): from the pod that
 * succeeded when `succeeded` is asked for, otherwise from the pod that ended last. Undefined
 * when no pod (any more) has one.
 */
export async function resticTerminationMessage(
  client: KubeClient,
  namespace: string,
  job: string,
  succeeded: boolean,
  container: JobContainer = { name: RESTIC_CONTAINER },
): Promise<string | undefined> {
  const { items } = await client.list<PodObject>(CoreKinds.Pod, namespace, {
    labelSelector: `job-name=${job}`,
  });
  const statusesOf = (pod: PodObject) =>
    container.init ? pod.status?.initContainerStatuses : pod.status?.containerStatuses;
  const ended = items
    .map((pod) => statusesOf(pod)?.find((c) => c.name === container.name))
    .map((container) => container?.state?.terminated)
    .filter((terminated): terminated is TerminatedState => terminated !== undefined)
    .filter((terminated) => !succeeded || terminated.exitCode === 0)
    .sort((a, b) => finishedAt(a) - finishedAt(b));
  const message = ended.at(-1)?.message?.trim();
  return message ? message : undefined;
}

function finishedAt(state: TerminatedState): number {
  return state.finishedAt ? new Date(state.finishedAt).getTime() || 0 : 0;
}

/** The line of a failed run's termination message (restic's last words) worth showing. */
export function failureExcerpt(message: string | undefined, maxChars = 400): string | undefined {
  const lines = (message ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const fatal = lines.filter((line) => /^(fatal|error)\b/i.test(line)).at(-1);
  const chosen = fatal ?? lines.at(-1);
  if (!chosen) return undefined;
  return chosen.length > maxChars ? `${chosen.slice(0, maxChars - 1)}…` : chosen;
}
