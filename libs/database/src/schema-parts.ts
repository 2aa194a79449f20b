import type { MigrationInterface } from 'typeorm';

export type MigrationClass = new () => MigrationInterface;

/**
 * The tables a library owns: only its code writes them; other libraries go through its
 * exported repositories, read models or SQL fragment builders.
 */
export interface TableOwnership {
  library: string;
  tables: readonly string[];
  /**
   * Owned tables that a released migration of another library creates (table → that library):
   * released migrations are never split or edited, so ownership moves by declaration.
   */
  createdElsewhere?: Readonly<Record<string, string>>;
}

/** The timestamp that ends a migration's class name (TypeORM orders by it too). */
const timestampOf = (migration: MigrationClass) => Number(/(\d{13})$/.exec(migration.name)?.[1]);

/**
 * Every library's migrations merged into the one order they run in, by timestamp. Fails on a
 * class without a timestamp or on two migrations sharing one.
 */
export function inMigrationOrder(...lists: ReadonlyArray<readonly MigrationClass[]>) {
  const all = lists.flat();
  const seen = new Map<number, string>();
  for (const migration of all) {
    const at = timestampOf(migration);
    if (!Number.isFinite(at)) throw new Error(`migration ${migration.name} has no timestamp`);
    if (seen.has(at))
      throw new Error(`migrations ${seen.get(at)} and ${migration.name} share ${at}`);
    seen.set(at, migration.name);
  }
  return [...all].sort((a, b) => timestampOf(a) - timestampOf(b));
}
