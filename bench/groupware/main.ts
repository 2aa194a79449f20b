import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  type Groupware,
  groupwareCrds,
  type GroupwareInstance,
  GroupwareKindRefs,
  type GroupwarePool,
  type GroupwareProfile,
} from '@platform/groupware';
import { KubeClient, type KubeObject } from '@platform/kube';
import { closedLocalPort, FakeKubeApiServer, THIRD_PARTY_CRDS } from '@platform/testing';
import {
  cpuSeconds,
  deployedNodeFlags,
  OperatorProcess,
  residentMemory,
} from '../operator/operator-process.js';
import { playFlux, playInstanceReconciler } from './stand-ins.js';
import {
  claimingGroupwares,
  CLAIMS,
  createAll,
  directInstances,
  POOL_SIZE,
  pools,
  profiles,
  TOTAL_INSTANCES,
} from './workload.js';

/**
 * The groupware operator (the built deployable, its own process) against the fake API server
 * with Flux's and CloudNativePG's CRDs: profiles, pools filling to their size, instances
 * created by hand, then Groupware objects claiming pooled instances and the pools refilling
 * (see workload.ts: 500 GroupwareInstances across 10 namespaces and 5 pools). Prints the time
 * until everything is reconciled, the operator's writes per instance to get there and over a
 * resync once at rest (target 0), and its peak resident memory (target < 150 MiB). It runs
 * whatever reconcilers the operator registers, and plays Flux (and the instance reconciler
 * when the operator has none).
 */
const RESYNC_SECONDS = Number(process.env.BENCH_RESYNC_SECONDS ?? 20);
const DEADLINE_MS = Number(process.env.BENCH_DEADLINE_SECONDS ?? 300) * 1000;
const MEMORY_TARGET_MIB = 150;
const CRD_COLLECTION = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
/** The kinds whose writes count: the operator's, not the lease of its leader election. */
const COUNTED_KINDS = [
  'GroupwareInstance',
  'GroupwarePool',
  'GroupwareProfile',
  'Groupware',
  'HelmRelease',
  'HelmRepository',
  'Cluster',
  'Secret',
  'Job',
  'CronJob',
  'Event',
];

const log = (line: string) => process.stderr.write(`  ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function startServer(): Promise<FakeKubeApiServer> {
  const server = await FakeKubeApiServer.start();
  for (const crd of [...groupwareCrds(), ...THIRD_PARTY_CRDS]) {
    const response = await fetch(`${server.url}${CRD_COLLECTION}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(crd),
    });
    if (response.status !== 201) throw new Error(`CRD refused: ${await response.text()}`);
  }
  return server;
}

/** Writes of the operator: everything counted but the bench's own creates. */
function operatorWrites(server: FakeKubeApiServer, benchCreates: number): number {
  return COUNTED_KINDS.reduce((sum, kind) => sum + server.mutations({ kind }), 0) - benchCreates;
}

/** Operator writes by method, kind and subresource, e.g. `PATCH GroupwarePool/status 12`. */
function writeBreakdown(server: FakeKubeApiServer, benchKinds: Set<string>): string {
  const counts = new Map<string, number>();
  for (const request of server.requests) {
    if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(request.method)) continue;
    if (!COUNTED_KINDS.includes(request.kind ?? '')) continue;
    const key = `${request.method} ${request.kind}${request.subresource ? `/${request.subresource}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts]
    .map(
      ([key, count]) => `${key} ${count}${benchKinds.has(key) ? ' (with the bench creates)' : ''}`,
    )
    .join(', ');
}

async function metricsText(port: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
}

/** The kinds the operator reconciles: each has a queue depth gauge from its start. */
async function reconciledKinds(port: number): Promise<string[]> {
  const kinds = new Set<string>();
  for (const line of (await metricsText(port)).split('\n')) {
    const match = /^operator_workqueue_depth\{kind="([^"]+)"\}/.exec(line);
    if (match) kinds.add(match[1]);
  }
  return [...kinds].sort();
}

async function reconcileTotal(port: number): Promise<number> {
  return (await metricsText(port))
    .split('\n')
    .filter((line) => line.startsWith('operator_reconcile_total{'))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** Polls every 500 ms, playing the other controllers each time. */
async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
  playOthers: () => void,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    playOthers();
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(500);
  }
}

interface Progress {
  instances: number;
  readyInstances: number;
  fullPools: number;
  boundGroupwares: number;
  countedProfiles: number;
}

function progress(server: FakeKubeApiServer): Progress {
  const instances = server.list<GroupwareInstance>(GroupwareKindRefs.GroupwareInstance);
  const poolList = server.list<GroupwarePool>(GroupwareKindRefs.GroupwarePool);
  const groupwares = server.list<Groupware>(GroupwareKindRefs.Groupware);
  const profileList = server.list<GroupwareProfile>(GroupwareKindRefs.GroupwareProfile);
  const users = (name: string) => instances.filter((i) => i.spec?.profile === name).length;
  const current = (object: KubeObject<unknown, { observedGeneration?: number }>) =>
    object.status?.observedGeneration === object.metadata.generation;
  return {
    instances: instances.length,
    readyInstances: instances.filter((i) => i.status?.phase === 'Ready').length,
    fullPools: poolList.filter((p) => current(p) && p.status?.ready === p.spec?.size).length,
    boundGroupwares: groupwares.filter((g) => g.status?.phase === 'Ready').length,
    countedProfiles: profileList.filter(
      (p) => current(p) && p.status?.instances === users(p.metadata.name!),
    ).length,
  };
}

async function main(): Promise<void> {
  const server = await startServer();
  const client = KubeClient.fromKubeConfig(server.kubeConfig());
  const directory = mkdtempSync(join(tmpdir(), 'bench-groupware-'));
  const kubeconfig = join(directory, 'kubeconfig');
  writeFileSync(kubeconfig, server.kubeconfigYaml());
  const port = await closedLocalPort();
  const extraArgs = (process.env.BENCH_OPERATOR_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const operator = OperatorProcess.start(
    {
      KUBECONFIG: kubeconfig,
      PORT: String(port),
      RESYNC_PERIOD_SECONDS: String(RESYNC_SECONDS),
      LEADER_ELECTION_NAMESPACE: 'default',
    },
    extraArgs,
    'groupware-operator',
  );
  try {
    await waitFor(
      'the operator to be ready',
      async () => {
        if (operator.exited) throw new Error(`the operator exited:\n${operator.recentOutput()}`);
        return fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.ok,
          () => false,
        );
      },
      60_000,
      () => undefined,
    );
    const kinds = await reconciledKinds(port);
    const standInInstances = !kinds.includes('GroupwareInstance');
    const playOthers = () => {
      playFlux(server, new Date());
      if (standInInstances) playInstanceReconciler(server);
    };
    log(
      `operator ready (pid ${operator.pid}, node ${[...deployedNodeFlags('groupware-operator'), ...extraArgs].join(' ')}, ` +
        `${residentMemory(operator.pid)?.currentMiB.toFixed(0)} MiB); reconciles ${kinds.join(', ')}` +
        (standInInstances
          ? '; the bench marks instances Ready in place of an instance reconciler'
          : ''),
    );

    const cpuBefore = cpuSeconds(operator.pid);
    const started = performance.now();
    const first = [...profiles(), ...pools(), ...directInstances()];
    await createAll(client, first);
    const poolCount = pools().length;
    await waitFor(
      'pools full and instances Ready',
      () => {
        const now = progress(server);
        return now.fullPools === poolCount && now.readyInstances === now.instances;
      },
      DEADLINE_MS,
      playOthers,
    );
    const filled = performance.now() - started;
    log(
      `pools full (${poolCount} × ${POOL_SIZE}) and direct instances Ready after ${(filled / 1000).toFixed(1)} s`,
    );

    const claims = claimingGroupwares();
    await createAll(client, claims);
    await waitFor(
      `${TOTAL_INSTANCES} instances Ready, Groupware bound, pools refilled, profiles counted`,
      () => {
        const now = progress(server);
        return (
          now.instances === TOTAL_INSTANCES &&
          now.readyInstances === TOTAL_INSTANCES &&
          now.boundGroupwares === CLAIMS &&
          now.fullPools === poolCount &&
          now.countedProfiles === profiles().length
        );
      },
      DEADLINE_MS,
      playOthers,
    );
    const reconciled = performance.now() - started;
    const benchCreates = first.length + claims.length;
    console.log(
      `${TOTAL_INSTANCES} GroupwareInstances (${poolCount} pools of ${POOL_SIZE}, ${CLAIMS} claimed and refilled, ` +
        `${first.length - poolCount - profiles().length} created directly) reconciled ` +
        `${(reconciled / 1000).toFixed(1)} s after the first create ` +
        `(pools full after ${(filled / 1000).toFixed(1)} s; operator CPU ${(cpuSeconds(operator.pid) - cpuBefore).toFixed(1)} s)`,
    );
    const benchKinds = new Set([
      'POST GroupwareProfile',
      'POST GroupwarePool',
      'POST GroupwareInstance',
      'POST Groupware',
    ]);
    console.log(
      `operator writes to reach that: ${(operatorWrites(server, benchCreates) / TOTAL_INSTANCES).toFixed(2)} per instance ` +
        `(${writeBreakdown(server, benchKinds)})`,
    );

    await steadyState(server, port, benchCreates, playOthers);

    const memory = residentMemory(operator.pid);
    if (memory) {
      console.log(
        `operator peak resident memory ${memory.peakMiB.toFixed(1)} MiB (now ${memory.currentMiB.toFixed(1)} MiB; ` +
          `target < ${MEMORY_TARGET_MIB} MiB) — ${memory.peakMiB < MEMORY_TARGET_MIB ? 'met' : 'not met'}`,
      );
    }
  } finally {
    await operator.stop();
    await server.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Waits for the writes to stop, then counts those of a full resync (target 0). */
async function steadyState(
  server: FakeKubeApiServer,
  port: number,
  benchCreates: number,
  playOthers: () => void,
): Promise<void> {
  let last = -1;
  await waitFor(
    'writes to stop',
    async () => {
      const now = operatorWrites(server, benchCreates);
      const quiet = now === last;
      last = now;
      if (!quiet) await sleep(2_000);
      return quiet;
    },
    60_000,
    playOthers,
  );
  const kinds = await reconciledKinds(port);
  const objects = kinds.reduce(
    (sum, kind) =>
      sum +
      (kind in GroupwareKindRefs
        ? server.list(GroupwareKindRefs[kind as keyof typeof GroupwareKindRefs]).length
        : 0),
    0,
  );
  const writesBefore = operatorWrites(server, benchCreates);
  const reconcilesBefore = await reconcileTotal(port);
  await waitFor(
    `a resync of all ${objects} objects`,
    async () => (await reconcileTotal(port)) - reconcilesBefore >= objects,
    (RESYNC_SECONDS + 60) * 1000,
    playOthers,
  );
  await sleep(2_000);
  const steadyWrites = operatorWrites(server, benchCreates) - writesBefore;
  const resynced = (await reconcileTotal(port)) - reconcilesBefore;
  console.log(
    `steady state: ${resynced} reconciles over a resync, ${steadyWrites} writes ` +
      `(${(steadyWrites / TOTAL_INSTANCES).toFixed(3)} per instance; target 0) — ${steadyWrites === 0 ? 'met' : 'not met'}`,
  );
}

await main();
