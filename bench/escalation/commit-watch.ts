import type { Pool, PoolClient } from 'pg';
import type { DataSource } from 'typeorm';

const CHANNEL = 'bench_rows_committed';

/**
 * When rows of a table become visible, without polling it: a statement-level trigger counts the
 * rows each INSERT added and sends the count with NOTIFY, which PostgreSQL delivers only when
 * the inserting transaction commits. Each arrival is stamped when this process receives it.
 *
 * Polling `count(*)` of two growing tables every 25 ms, as the bench did before, cost the
 * saturated machine it measures a share of a core (figures in docs/performance.md); a trigger
 * adds one count over the statement's own new rows. The triggers exist only while watching.
 */
export class CommitWatch {
  /** Epoch ms at which each committed row was seen, per watched name. */
  private readonly seen = new Map<string, number[]>();

  private constructor(
    private readonly db: DataSource,
    private readonly client: PoolClient,
    private readonly triggers: Array<{ name: string; table: string }>,
  ) {
    client.on('notification', ({ channel, payload }) => {
      if (channel !== CHANNEL || !payload) return;
      const [name, count] = payload.split(':');
      const at = Date.now();
      const times = this.seen.get(name);
      if (times) for (let n = Number(count); n > 0; n -= 1) times.push(at);
    });
  }

  /**
   * Watches each `{name, table}`: every row inserted into `table`, or with `organizationId` only
   * the rows of that organization (the table has an organization_id column).
   */
  static async start(
    db: DataSource,
    watched: Array<{ name: string; table: string; organizationId?: string }>,
  ): Promise<CommitWatch> {
    // Payloads repeated within one transaction are folded into one notification: each carries
    // a random part of its own.
    await db.query(`
      CREATE OR REPLACE FUNCTION bench_rows_committed() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE added int;
      BEGIN
        IF TG_NARGS > 1 THEN
          SELECT count(*) INTO added FROM inserted WHERE organization_id = TG_ARGV[1]::uuid;
        ELSE
          SELECT count(*) INTO added FROM inserted;
        END IF;
        IF added > 0 THEN
          PERFORM pg_notify('${CHANNEL}', TG_ARGV[0] || ':' || added || ':' || random());
        END IF;
        RETURN NULL;
      END $$`);
    const triggers: Array<{ name: string; table: string }> = [];
    for (const { name, table, organizationId } of watched) {
      const args = [name, organizationId].filter(Boolean).map((arg) => `'${arg}'`);
      await db.query(
        `CREATE TRIGGER bench_${name} AFTER INSERT ON ${table} REFERENCING NEW TABLE AS inserted
           FOR EACH STATEMENT EXECUTE FUNCTION bench_rows_committed(${args.join(', ')})`,
      );
      triggers.push({ name: `bench_${name}`, table });
    }
    const pool = (db.driver as unknown as { master: Pool }).master;
    const client = await pool.connect();
    const watch = new CommitWatch(db, client, triggers);
    for (const { name } of watched) watch.seen.set(name, []);
    await client.query(`LISTEN ${CHANNEL}`);
    return watch;
  }

  /** Rows of `name` seen committed so far. */
  count(name: string): number {
    return this.seen.get(name)?.length ?? 0;
  }

  /** When each row of `name` was seen committed, in order (epoch ms). */
  times(name: string): readonly number[] {
    return this.seen.get(name) ?? [];
  }

  async stop(): Promise<void> {
    await this.client.query(`UNLISTEN ${CHANNEL}`).catch(() => undefined);
    this.client.release();
    for (const { name, table } of this.triggers)
      await this.db.query(`DROP TRIGGER IF EXISTS ${name} ON ${table}`);
  }
}
