import { createHash, randomBytes } from 'node:crypto';
import { migrate, quoteIdentifier } from '@platform/database';
import { MIGRATIONS } from '@platform/schema';
import pg from 'pg';

/** Serializes template creation across jest workers; an arbitrary constant. */
const TEMPLATE_LOCK = 7_262_026;
/** Templates of other migration sets kept on the server, newest first, with this one. */
const KEPT_TEMPLATES = 6;

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

function serverUrl(): URL {
  return new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/platform');
}

function urlFor(database: string): string {
  const url = serverUrl();
  url.pathname = `/${database}`;
  return url.toString();
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: urlFor('postgres') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function dropper(name: string): () => Promise<void> {
  return () =>
    withAdmin(async (admin) => {
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
    });
}

/**
 * A database of its own that does not exist yet, for tests of start-up on a fresh server:
 * `migrate` creates it (or `create()` makes it empty); `drop()` removes it either way.
 */
export function uncreatedTestDatabase(): TestDatabase & { create(): Promise<void> } {
  const name = `platform_test_${randomBytes(6).toString('hex')}`;
  return {
    name,
    url: urlFor(name),
    create: () =>
      withAdmin(async (admin) => {
        await admin.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
      }),
    drop: dropper(name),
  };
}

/**
 * The template's name changes with the migrations, names and code alike, so a new migration
 * or an edited one (while it is being written) means a new template.
 */
function templateName(): string {
  const digest = createHash('sha256')
    .update(MIGRATIONS.map((m) => `${m.name}\n${m.prototype.up.toString()}`).join('\n'))
    .digest('hex')
    .slice(0, 12);
  return `platform_tpl_${digest}`;
}

/**
 * Migrates a template database once per migration set (the first test file to arrive does it
 * under an advisory lock), then every test file gets a clone: `CREATE DATABASE ... TEMPLATE`
 * copies files instead of replaying migrations.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const template = templateName();
  const name = `platform_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(async (admin) => {
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    try {
      const ready = await admin.query(
        'SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate',
        [template],
      );
      if (ready.rowCount === 0) {
        // Older templates are dropped, but the newest few stay: checkouts of other migration
        // sets testing on the same server keep theirs instead of rebuilding them in turn.
        const stale = await admin.query<{ datname: string }>(
          `SELECT datname FROM pg_database WHERE datname LIKE 'platform\\_tpl\\_%'
            ORDER BY oid DESC OFFSET $1`,
          [KEPT_TEMPLATES - 1],
        );
        for (const { datname } of stale.rows) {
          await admin.query(`ALTER DATABASE ${quoteIdentifier(datname)} IS_TEMPLATE false`);
          await admin.query(`DROP DATABASE ${quoteIdentifier(datname)} WITH (FORCE)`);
        }
        await admin.query(`CREATE DATABASE ${quoteIdentifier(template)}`);
        await migrate(urlFor(template), MIGRATIONS);
        await admin.query(
          `ALTER DATABASE ${quoteIdentifier(template)} IS_TEMPLATE true ALLOW_CONNECTIONS false`,
        );
      }
      await admin.query(
        `CREATE DATABASE ${quoteIdentifier(name)} TEMPLATE ${quoteIdentifier(template)}`,
      );
    } finally {
      await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
    }
  });
  return { name, url: urlFor(name), drop: dropper(name) };
}
