import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadBackupCrds } from '@platform/backups';
import { CoreKinds, type KindRef, KubeClient, type KubeObject } from '@platform/kube';
import {
  buildDeployables,
  createTestDatabase,
  DeployableProcess,
  type DeployablesBuild,
  FakeKubeApiServer,
  freeLocalPorts,
  type TestDatabase,
  testConfig,
} from '@platform/testing';

const CRD: KindRef = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
};

type Lease = KubeObject & { spec?: { holderIdentity?: string } };

async function status(url: string): Promise<number> {
  return (await fetch(url, { signal: AbortSignal.timeout(5000) })).status;
}

/**
 * The backup operator as its own process against the fake Kubernetes API server: it serves
 * the probes every process serves (and the chart's `/healthz`, `/readyz`), and on SIGTERM it
 * gives up its leadership, releasing the Lease for the next replica, and exits 0.
 */
describe('operator process probes and graceful stop', () => {
  let build: DeployablesBuild;
  let database: TestDatabase;
  let server: FakeKubeApiServer;
  let directory: string;

  beforeAll(async () => {
    build = buildDeployables();
    database = await createTestDatabase();
    server = await FakeKubeApiServer.start();
    const client = KubeClient.fromKubeConfig(server.kubeConfig());
    for (const crd of loadBackupCrds()) await client.create(CRD, crd as unknown as KubeObject);
    directory = mkdtempSync(join(tmpdir(), 'operator-'));
    writeFileSync(join(directory, 'kubeconfig'), server.kubeconfigYaml());
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    rmSync(directory, { recursive: true, force: true });
    await build?.remove();
  });

  it('serves its probes and metrics, releases its lease on SIGTERM and exits 0', async () => {
    const [port] = await freeLocalPorts(1);
    const base = `http://127.0.0.1:${port}`;
    const operator = await DeployableProcess.start(
      build.entry('backup-operator'),
      testConfig(database),
      {
        env: {
          KUBECONFIG: join(directory, 'kubeconfig'),
          PORT: String(port),
          LEADER_ELECTION_NAMESPACE: 'default',
          POD_NAME: 'backup-operator-1',
        },
        ready: { url: `${base}/health/ready` },
      },
    );
    for (const path of ['/health/live', '/health/ready', '/metrics', '/healthz', '/readyz']) {
      expect([path, await status(`${base}${path}`)]).toEqual([path, 200]);
    }
    const client = KubeClient.fromKubeConfig(server.kubeConfig());
    const lease = () => client.get<Lease>(CoreKinds.Lease, 'default', 'backup-operator-leader');
    expect((await lease())?.spec?.holderIdentity).toBe('backup-operator-1');

    operator.signal('SIGTERM');
    expect(await operator.ended()).toEqual({ code: 0, signal: null });
    expect((await lease())?.spec?.holderIdentity ?? '').toBe('');
    expect(operator.output.some((line) => line.includes('"SIGTERM: stopped"'))).toBe(true);
  }, 120_000);
});
