import { randomBytes } from 'node:crypto';
import type { V1Secret } from '@kubernetes/client-node';
import { CoreKinds, isKubeApiError, type KubeObject, type ReconcileContext } from '@platform/kube';
import type { GroupwareInstance } from '../crds/types.js';
import { instanceObjectNames, ownedMetadata } from './instance-names.js';

/** The generated admin Secret `<name>-admin`: username `admin`, a random password, an email. */
export function adminSecret(instance: GroupwareInstance, password: string): V1Secret {
  const host = instance.spec?.ingress?.host ?? 'localhost';
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: ownedMetadata(instance, instanceObjectNames(instance.metadata.name!).adminSecret),
    type: 'Opaque',
    data: Object.fromEntries(
      Object.entries({ username: 'admin', password, email: `admin@${host}` }).map(
        ([key, value]) => [key, Buffer.from(value).toString('base64')],
      ),
    ),
  };
}

/** 32 random bytes, URL-safe: 43 characters. */
export function randomPassword(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Creates `<name>-admin` when the spec names no admin Secret and it does not exist. An existing
 * one is never rewritten: Nextcloud keeps the password it was installed with.
 */
export async function ensureAdminSecret(
  context: ReconcileContext,
  instance: GroupwareInstance,
): Promise<void> {
  if (instance.spec?.admin?.credentialsSecret) return;
  const namespace = instance.metadata.namespace!;
  const name = instanceObjectNames(instance.metadata.name!).adminSecret;
  if (await context.client.get(CoreKinds.Secret, namespace, name)) return;
  try {
    await context.client.create(
      CoreKinds.Secret,
      adminSecret(instance, randomPassword()) as KubeObject,
    );
  } catch (error) {
    // Created meanwhile (by another pass): that one stays.
    if (!isKubeApiError(error, 409)) throw error;
  }
}
