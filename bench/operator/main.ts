import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadBackupCrds, VolumeBackupKind } from '@platform/backups';
import { CoreKinds, type KindRef, KubeClient, type KubeObject } from '@platform/kube';
import { closedLocalPort, FakeKubeApiServer } from '@platform/testing';
import {
  cpuSeconds,
  deployedNodeFlags,
  OperatorProcess,
  residentMemory,
} from './operator-process.js';
import { SnapshotBackupLoad } from './snapshot-backups.js';

/**
 * The backup operator against the fake API server: BENCH_VOLUME_BACKUPS VolumeBackups and
 * BENCH_SNAPSHOT_BACKUPS VolumeSnapshotBackups (over a fake OpenStack's Cinder) spread over
 * BENCH_NAMESPACES namespaces, created through the API while the operator (the built
 * deployable, its own process) runs. Prints the time until every VolumeBackup has its CronJob
 * and a status and every VolumeSnapshotBackup's run has ended, the writes per object over a
 * resync once everything is in place (target 0), and the operator's peak resident memory
 * (target < 150 MiB).
 */
const COUNT = Number(process.env.BENCH_VOLUME_BACKUPS ?? 1000);
const SNAPSHOT_COUNT = Number(process.env.BENCH_SNAPSHOT_BACKUPS ?? 100);
const NAMESPACES = Number(process.env.BENCH_NAMESPACES ?? 10);
const CREATE_CONCURRENCY = Number(process.env.BENCH_CREATE_CONCURRENCY ?? 16);
const RESYNC_SECONDS = Number(process.env.BENCH_RESYNC_SECONDS ?? 20);
const DEADLINE_MS = Number(process.env.BENCH_DEADLINE_SECONDS ?? 240) * 1000;
const MEMORY_TARGET_MIB = 150;

const CRD: KindRef = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
};
/** The kinds whose writes count: the operator's, not the lease of its leader election. */
const COUNTED_KINDS = [
  'VolumeBackup',
  'VolumeSnapshotBackup',
  'CronJob',
  'PersistentVolumeClaim',
  'PersistentVolume',
  'Job',
  'Pod',
];
/** The bench's own creates, not the operator's writes. */
const isBenchCreate = (request: { method: string; kind?: string }) =>
  request.method === 'POST' &&
  (request.kind === 'VolumeBackup' || request.kind === 'VolumeSnapshotBackup');

const log = (line: string) => process.stderr.write(`  ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function volumeBackup(index: number): KubeObject {
  return {
    apiVersion: 'backups.k8s.neutral.com/v1',
    kind: 'VolumeBackup',
    metadata: { name: `volume-${index}`, namespace: `tenant-${index % NAMESPACES}` },
    spec: {
      volumeClaimRef: { name: `data-${index}` },
      schedule: `${index % 60} ${index % 24} * * *`,
      repository: {
        type: 's3',
        url: `s3:https://objects.example.test/backups/volume-${index}`,
        secretRef: { name: 'restic-credentials' },
      },
      retention: { keepLast: 7, keepDaily: 14 },
    },
  };
}

async function createAll(client: KubeClient): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < COUNT) await client.create(VolumeBackupKind, volumeBackup(next++));
  };
  await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, worker));
}

function reconciledCount(server: FakeKubeApiServer): { cronJobs: number; statuses: number } {
  const cronJobs = server.list<KubeObject>(CoreKinds.CronJob).length;
  const statuses = server
    .list<KubeObject<unknown, { observedGeneration?: number }>>(VolumeBackupKind)
    .filter((vb) => vb.status?.observedGeneration === vb.metadata.generation).length;
  return { cronJobs, statuses };
}

/** Writes by method, kind and subresource, e.g. `PATCH VolumeBackup/status 1000`. */
function writeBreakdown(server: FakeKubeApiServer): string {
  const counts = new Map<string, number>();
  for (const request of server.requests) {
    if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(request.method)) continue;
    if (!COUNTED_KINDS.includes(request.kind ?? '')) continue;
    if (isBenchCreate(request)) continue;
    const key = `${request.method} ${request.kind}${request.subresource ? `/${request.subresource}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, count]) => `${key} ${count}`).join(', ');
}

/** Writes of the operator: everything but the bench's own creates of VolumeBackups. */
function operatorWrites(server: FakeKubeApiServer): number {
  const creates = server.requests.filter(isBenchCreate);
  return COUNTED_KINDS.reduce((sum, kind) => sum + server.mutations({ kind }), 0) - creates.length;
}

async function reconcileTotal(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return text
    .split('\n')
    .filter(
      (line) =>
        line.startsWith('operator_reconcile_total{') &&
        (line.includes('"VolumeBackup"') || line.includes('"VolumeSnapshotBackup"')),
    )
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** Polls every 500 ms: listing the fake server's objects costs the bench process CPU the server needs. */
async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(500);
  }
}

async function main(): Promise<void> {
  const server = await FakeKubeApiServer.start();
  const client = KubeClient.fromKubeConfig(server.kubeConfig());
  for (const crd of loadBackupCrds()) await client.create(CRD, crd as unknown as KubeObject);
  const directory = mkdtempSync(join(tmpdir(), 'bench-operator-'));
  const kubeconfig = join(directory, 'kubeconfig');
  writeFileSync(kubeconfig, server.kubeconfigYaml());
  const port = await closedLocalPort();
  const snapshots = await SnapshotBackupLoad.prepare(server, SNAPSHOT_COUNT, NAMESPACES);
  // Added after the chart's node flags to try V8 settings, e.g. "--max-semi-space-size=16".
  const extraArgs = (process.env.BENCH_OPERATOR_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const operator = OperatorProcess.start(
    {
      KUBECONFIG: kubeconfig,
      PORT: String(port),
      RESYNC_PERIOD_SECONDS: String(RESYNC_SECONDS),
      LEADER_ELECTION_NAMESPACE: 'default',
    },
    extraArgs,
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
    );
    log(
      `operator ready (pid ${operator.pid}, node ${[...deployedNodeFlags(), ...extraArgs].join(' ')}, ` +
        `${residentMemory(operator.pid)?.currentMiB.toFixed(0)} MiB)`,
    );

    const cpuBefore = cpuSeconds(operator.pid);
    const started = performance.now();
    const controllers = setInterval(() => snapshots.actAsControllers(), 500);
    await Promise.all([createAll(client), snapshots.createAll(client)]);
    const created = performance.now() - started;
    let snapshotRunsEnded = 0;
    await waitFor(
      `${COUNT} VolumeBackups reconciled and ${SNAPSHOT_COUNT} snapshot runs ended`,
      () => {
        const { cronJobs, statuses } = reconciledCount(server);
        if (!snapshotRunsEnded && snapshots.finished().ended >= SNAPSHOT_COUNT) {
          snapshotRunsEnded = performance.now() - started;
        }
        return cronJobs >= COUNT && statuses >= COUNT && snapshotRunsEnded > 0;
      },
      DEADLINE_MS,
    );
    clearInterval(controllers);
    const reconciled = performance.now() - started;
    console.log(
      `${COUNT} VolumeBackups reconciled (CronJob and cache claim in place, status written) ` +
        `${(reconciled / 1000).toFixed(1)} s after the first create ` +
        `(creating them took ${(created / 1000).toFixed(1)} s; ${(COUNT / (reconciled / 1000)).toFixed(0)}/s; ` +
        `operator CPU ${(cpuSeconds(operator.pid) - cpuBefore).toFixed(1)} s)`,
    );
    const { succeeded } = snapshots.finished();
    const left = snapshots.leftInCloud();
    console.log(
      `${SNAPSHOT_COUNT} VolumeSnapshotBackups ended ${(snapshotRunsEnded / 1000).toFixed(1)} s after the first create ` +
        `(${succeeded} Succeeded; left in Cinder: ${left.snapshots} snapshots, ${left.temporaryVolumes} temporary volumes)`,
    );
    console.log(
      `operator writes to reach that: ${(operatorWrites(server) / (COUNT + SNAPSHOT_COUNT)).toFixed(2)} per object ` +
        `(${writeBreakdown(server)})`,
    );

    // Quiet first: the watch echoes of the last writes settle.
    let last = -1;
    await waitFor(
      'writes to stop',
      async () => {
        const now = operatorWrites(server);
        const quiet = now === last;
        last = now;
        if (!quiet) await sleep(2_000);
        return quiet;
      },
      60_000,
    );
    const writesBefore = operatorWrites(server);
    const reconcilesBefore = await reconcileTotal(port);
    await waitFor(
      'a resync of every VolumeBackup and VolumeSnapshotBackup',
      async () => (await reconcileTotal(port)) - reconcilesBefore >= COUNT + SNAPSHOT_COUNT,
      (RESYNC_SECONDS + 60) * 1000,
    );
    await sleep(2_000);
    const steadyWrites = operatorWrites(server) - writesBefore;
    const resynced = (await reconcileTotal(port)) - reconcilesBefore;
    console.log(
      `steady state: ${resynced} reconciles over a resync, ${steadyWrites} writes ` +
        `(${(steadyWrites / (COUNT + SNAPSHOT_COUNT)).toFixed(3)} per object; target 0) — ${steadyWrites === 0 ? 'met' : 'not met'}`,
    );

    const memory = residentMemory(operator.pid);
    if (memory) {
      console.log(
        `operator peak resident memory ${memory.peakMiB.toFixed(1)} MiB (now ${memory.currentMiB.toFixed(1)} MiB; ` +
          `target < ${MEMORY_TARGET_MIB} MiB) — ${memory.peakMiB < MEMORY_TARGET_MIB ? 'met' : 'not met'}`,
      );
    }
  } finally {
    await operator.stop();
    await snapshots.close();
    await server.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

await main();
