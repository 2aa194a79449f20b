import 'reflect-metadata';
import { createTestApp, FakeClock, type TestApp } from '@platform/testing';
import { ApiModule } from '../../apps/api/api.module.js';
import { SmtpCounter } from '../notifications/smtp-counter.js';
import { WorkerProcesses } from '../notifications/worker-processes.js';
import { escalationPhase } from './escalation.js';
import { type Block, envNumber, log } from './figures.js';
import { singlePhase } from './single.js';
import { stormPhase } from './storm.js';

const WORKERS = envNumber('BENCH_ESCALATION_WORKERS', 2);
/** In this order whatever the order named: the escalation phase leaves second steps behind. */
const PHASES = ['single', 'storm', 'escalation'] as const;
type Phase = (typeof PHASES)[number];

function selectedPhases(): Phase[] {
  const named = (process.env.BENCH_PHASES ?? PHASES.join(','))
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = named.filter((name) => !(PHASES as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(`BENCH_PHASES: unknown ${unknown.join(', ')} (phases: ${PHASES.join(', ')})`);
  return PHASES.filter((phase) => named.includes(phase));
}

/**
 * The API runs on the real time, as the worker processes do: alerts, sessions and the step
 * jobs' due instants all read the same clock as the timestamps the bench takes.
 */
class WallClock extends FakeClock {
  override now(): Date {
    return new Date();
  }
}

/**
 * What a person feels when alerts fire: the API listening on a port with the bench's sockets
 * on it, worker processes started as production starts them, every e-mail delivered to an SMTP
 * server in a worker thread that stamps each message's acceptance. The phases run one after
 * the other on the same deployment, each for an organization of its own.
 */
async function main(): Promise<number> {
  const phases = selectedPhases();
  const smtp = await SmtpCounter.start({ arrivals: true });
  let t: TestApp | null = null;
  let workers: WorkerProcesses | null = null;
  let missed = 0;
  try {
    t = await createTestApp((config) => ApiModule.forRoot(config), {
      listen: true,
      clock: new WallClock(),
      config: { smtpUrl: smtp.url },
    });
    workers = await WorkerProcesses.start(WORKERS, t.config);
    log(`${WORKERS} worker processes started; phases: ${phases.join(', ')}`);
    for (const phase of phases) {
      let block: Block;
      try {
        if (phase === 'single') block = await singlePhase(t, smtp);
        else if (phase === 'storm') block = await stormPhase(t, smtp);
        else block = await escalationPhase(t, smtp, workers.pids);
      } catch (error) {
        // The next phases still run: one failed set-up says nothing about them.
        process.stdout.write(`${phase}: failed — ${(error as Error).stack ?? String(error)}\n`);
        missed += 1;
        continue;
      }
      process.stdout.write(block.text());
      missed += block.targetsMissed;
    }
  } finally {
    await workers?.stop();
    await t?.close();
    await smtp.close();
  }
  return missed > 0 ? 1 : 0;
}

const code = await main();
// Everything is closed; do not wait for stray handles of the libraries to let go.
process.exit(code);
