/** How long a write waits to show in the cache before it is no longer counted. */
export const EXPECTATION_TTL_MS = 5 * 60_000;

interface PendingWrites {
  creates: Map<string, number>;
  deletes: Map<string, number>;
}

/**
 * Instances a pool created or deleted that its informer cache does not show yet (the watch
 * event of a write may arrive after the next reconcile starts). Counting them keeps the pool
 * from creating twice for one gap, as the ReplicaSet controller's expectations do. An entry
 * ends when the cache agrees, or after EXPECTATION_TTL_MS should the event never come.
 */
export class PoolExpectations {
  private readonly pools = new Map<string, PendingWrites>();

  expectCreated(pool: string, name: string, nowMs: number): void {
    this.of(pool).creates.set(name, nowMs + EXPECTATION_TTL_MS);
  }

  expectDeleted(pool: string, name: string, nowMs: number): void {
    this.of(pool).deletes.set(name, nowMs + EXPECTATION_TTL_MS);
  }

  /**
   * Drops what the cache now shows (`cached`: names of the pool's instances in the cache) and
   * what expired; answers the creates not seen yet and the deletes still cached.
   */
  pending(
    pool: string,
    cached: ReadonlySet<string>,
    nowMs: number,
  ): { creates: string[]; deletes: Set<string> } {
    const writes = this.pools.get(pool);
    if (!writes) return { creates: [], deletes: new Set() };
    for (const [name, expiresAt] of writes.creates) {
      if (cached.has(name) || expiresAt <= nowMs) writes.creates.delete(name);
    }
    for (const [name, expiresAt] of writes.deletes) {
      if (!cached.has(name) || expiresAt <= nowMs) writes.deletes.delete(name);
    }
    if (writes.creates.size === 0 && writes.deletes.size === 0) this.pools.delete(pool);
    return { creates: [...writes.creates.keys()], deletes: new Set(writes.deletes.keys()) };
  }

  forget(pool: string): void {
    this.pools.delete(pool);
  }

  private of(pool: string): PendingWrites {
    let writes = this.pools.get(pool);
    if (!writes) {
      writes = { creates: new Map(), deletes: new Map() };
      this.pools.set(pool, writes);
    }
    return writes;
  }
}
