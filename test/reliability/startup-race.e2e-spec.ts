import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  buildDeployables,
  deleteRedisPrefix,
  DeployableProcess,
  type DeployablesBuild,
  freeLocalPorts,
  testConfig,
  uncreatedTestDatabase,
} from '@platform/testing';
import pg from 'pg';

const ROUNDS = 10;
const APIS = 3;
const WORKERS = 2;
/** How long every process must stay up once all of them are ready. */
const STAY_UP_MS = 1500;
/** Generous: five Node processes starting on a small machine that runs other tests too. */
const START_TIMEOUT_MS = 120_000;
const admin = { login: 'root@startup.example', password: 'platform admin password 1' };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function platformAdmins(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ login: string }>(
      'SELECT login FROM account WHERE is_platform_admin AND email_verified_at IS NOT NULL',
    );
    return rows.map((row) => row.login);
  } finally {
    await client.end();
  }
}

/** Starts every process at once; when one fails to start, kills the others and says why. */
async function startAll(starts: Array<Promise<DeployableProcess>>): Promise<DeployableProcess[]> {
  const results = await Promise.allSettled(starts);
  const started = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
  if (failures.length > 0) {
    await Promise.all(started.map((deployable) => deployable.kill()));
    throw new Error(
      `${failures.length} of ${starts.length} failed to start:\n${failures.join('\n\n')}`,
    );
  }
  return started;
}

/**
 * Several processes starting at once against one fresh database, as a deployment's first
 * rollout does: three API replicas and two workers, real processes of the built deployables,
 * each with PLATFORM_ADMIN_LOGIN and PLATFORM_ADMIN_PASSWORD. Odd rounds run two `migrate`
 * processes at once, which create the database and ensure the admin; even rounds create the
 * database empty and run one `migrate` without the admin variables, so the three APIs race to
 * create the account. Every round: all five stay up, one platform admin exists and can log in.
 */
describe('start-up of several processes at once on a fresh database', () => {
  let build: DeployablesBuild;

  beforeAll(() => {
    build = buildDeployables();
  });

  afterAll(async () => {
    await build?.remove();
  });

  for (let round = 1; round <= ROUNDS; round += 1) {
    const migrates = round % 2 === 1 ? 2 : 1;
    it(
      `round ${round}: ${migrates} migrate run(s), then ${APIS} APIs and ${WORKERS} workers`,
      async () => {
        const database = uncreatedTestDatabase();
        const config = testConfig(database, { platformAdmin: admin });
        const processes: DeployableProcess[] = [];
        try {
          if (migrates === 1) await database.create();
          const withoutAdmin = { PLATFORM_ADMIN_LOGIN: '', PLATFORM_ADMIN_PASSWORD: '' };
          const runs = await Promise.all(
            Array.from({ length: migrates }, () =>
              DeployableProcess.run(build.entry('migrate'), config, {
                env: migrates === 1 ? withoutAdmin : {},
              }),
            ),
          );
          for (const run of runs)
            expect({ code: run.code, output: run.output }).toMatchObject({ code: 0 });

          const ports = await freeLocalPorts(APIS);
          processes.push(
            ...(await startAll([
              ...ports.map((port) =>
                DeployableProcess.start(build.entry('api'), config, {
                  env: { PORT: String(port) },
                  ready: { url: `http://127.0.0.1:${port}/health/ready` },
                  startTimeoutMs: START_TIMEOUT_MS,
                }),
              ),
              ...Array.from({ length: WORKERS }, () =>
                DeployableProcess.start(build.entry('worker'), config, {
                  env: { WORKER_PORT: '0' },
                  startTimeoutMs: START_TIMEOUT_MS,
                }),
              ),
            ])),
          );
          const readyAt = Date.now();

          // The APIs ensure the admin in the background, once started.
          let admins = await platformAdmins(database.url);
          while (admins.length === 0 && Date.now() - readyAt < START_TIMEOUT_MS) {
            await sleep(100);
            admins = await platformAdmins(database.url);
          }
          expect(admins).toEqual([admin.login]);
          const login = await fetch(`http://127.0.0.1:${ports[round % APIS]}/login`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify(admin),
          });
          expect({ status: login.status, body: await login.json() }).toMatchObject({ status: 200 });
          expect(login.headers.get('authorization')).toMatch(/^Bearer \S+$/);

          await sleep(STAY_UP_MS - (Date.now() - readyAt));
          const down = processes.filter((deployable) => deployable.exited);
          expect(down.map((deployable) => deployable.output.join('\n'))).toEqual([]);
          for (const port of ports) {
            expect((await fetch(`http://127.0.0.1:${port}/health/ready`)).status).toBe(200);
          }
          // Nothing failed on the way, not even work retried until it succeeded.
          const complaints = processes.flatMap((deployable) =>
            deployable.output.filter((line) => /"level":"(warn|error|fatal)"/.test(line)),
          );
          expect(complaints).toEqual([]);
          // Made once: by one of the migrate runs when they had the variables, else by one API.
          const created = (lines: string[]) =>
            lines.filter((line) => line.includes(`platform admin ${admin.login} created`)).length;
          expect(runs.map((run) => created(run.output)).sort()).toEqual(
            migrates === 2 ? [0, 1] : [0],
          );
          expect(processes.slice(0, APIS).reduce((sum, api) => sum + created(api.output), 0)).toBe(
            migrates === 2 ? 0 : 1,
          );
        } finally {
          await Promise.all(processes.map((deployable) => deployable.kill()));
          await database.drop();
          await deleteRedisPrefix(config.redisPrefix);
        }
      },
      3 * START_TIMEOUT_MS,
    );
  }
});
