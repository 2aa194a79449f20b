import { createHash } from 'node:crypto';
import { CoreKinds, type KubeClient, type KubeObject, ownerReference } from '@platform/kube';
import type { GroupwareInstance, TalkServerSpec } from '../crds/types.js';
import { OccLabels } from '../occ/occ-job.js';
import type { TalkBackend } from './talk-backends.js';

/** Annotations on the Jobs and secret copies of a Talk server. */
export const TalkAnnotations = {
  /** Name of the SignalingServer or RecordingServer (names may exceed a label's 63 characters). */
  server: 'k8s.neutral.com/talk-server',
} as const;

/** The key of the shared secret in the instance's copy. */
export const SECRET_COPY_KEY = 'secret';

const KUBE_NAME_MAX = 63;
const HASH_LENGTH = 10;

/**
 * `<instance>-talk-<purpose>-<server>`: the copy of a server's secret in the instance's
 * namespace, where its Jobs can read it. Over 63 characters, the start is kept and a hash of
 * the whole name ends it, so two servers never share a copy.
 */
export function secretCopyName(instanceName: string, backend: TalkBackend, server: string): string {
  const full = `${instanceName}-talk-${backend.purpose}-${server}`;
  if (full.length <= KUBE_NAME_MAX) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, HASH_LENGTH);
  const start = full.slice(0, KUBE_NAME_MAX - HASH_LENGTH - 1).replace(/[-.]+$/, '');
  return `${start}-${hash}`;
}

export class SecretUnavailable extends Error {
  override readonly name = 'SecretUnavailable';
}

/** The shared secret the server's secretRef names (base64, as the Secret holds it). */
export async function readSharedSecret(client: KubeClient, spec: TalkServerSpec): Promise<string> {
  const { name, namespace, key = SECRET_COPY_KEY } = spec.secretRef;
  const secret = await client.get<KubeObject & { data?: Record<string, string> }>(
    CoreKinds.Secret,
    namespace,
    name,
  );
  if (!secret) throw new SecretUnavailable(`Secret ${namespace}/${name} does not exist`);
  const value = secret.data?.[key];
  if (!value) throw new SecretUnavailable(`Secret ${namespace}/${name} has no key ${key}`);
  return value;
}

/** The instance's copy of the shared secret, owned by the instance (it goes with it). */
export function secretCopy(
  instance: GroupwareInstance,
  backend: TalkBackend,
  server: string,
  base64Value: string,
): KubeObject & { type: string; data: Record<string, string> } {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: secretCopyName(instance.metadata.name!, backend, server),
      namespace: instance.metadata.namespace,
      labels: {
        'app.kubernetes.io/managed-by': 'groupware-operator',
        [OccLabels.instance]: instance.metadata.name!,
        [OccLabels.purpose]: backend.purpose,
      },
      annotations: { [TalkAnnotations.server]: server },
      ownerReferences: [ownerReference(instance)],
    },
    type: 'Opaque',
    data: { [SECRET_COPY_KEY]: base64Value },
  };
}
