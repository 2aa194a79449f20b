/**
 * Runs `work` on every item, at most `limit` at a time, in order of the items; resolves when all
 * are done. Rejects with the first failure (the others still finish): `work` that must not fail
 * the whole catches its own errors.
 */
export async function forEachConcurrently<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]);
  };
  const lanes = Array.from({ length: Math.min(Math.max(1, limit), items.length) }, lane);
  const settled = await Promise.allSettled(lanes);
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
}
