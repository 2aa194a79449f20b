import {
  isKubeApiError,
  type KindRef,
  type KubeObject,
  type ReconcileContext,
} from '@platform/kube';

/**
 * Creates an object unless it exists (in the cache, else on the server). What is created here
 * is never patched: a Job's template and a bound volume's spec are immutable.
 */
export async function createOnce<T extends KubeObject>(
  context: ReconcileContext,
  kind: KindRef,
  object: { metadata: { name?: string; namespace?: string } },
): Promise<T> {
  const namespace = kind.namespaced ? object.metadata.namespace : undefined;
  const name = object.metadata.name ?? '';
  let cached: T | undefined;
  try {
    cached = context.cache<T>(kind).get(namespace, name);
  } catch {
    // A kind the reconciler does not cache (the persistent volume): ask the server.
    cached = undefined;
  }
  if (cached) return cached;
  const live = await context.client.get<T>(kind, namespace, name);
  if (live) return live;
  try {
    return await context.client.create<T>(kind, object as unknown as T);
  } catch (error) {
    if (!isKubeApiError(error, 409)) throw error;
    const created = await context.client.get<T>(kind, namespace, name);
    if (!created) throw error;
    return created;
  }
}
