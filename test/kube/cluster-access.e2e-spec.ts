import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  inClusterKubeconfig,
  type KindRef,
  KubeClient,
  KubeconfigAccess,
  type KubeObject,
} from '@platform/kube';

const ConfigMapKind: KindRef = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};

const fixture = (name: string) => readFile(new URL(`./fixtures/${name}`, import.meta.url));

interface SeenRequest {
  path: string;
  headers: Record<string, string[]>;
  /** The common name of the client certificate the TLS handshake verified. */
  clientCertificate?: string;
}

/**
 * An API server that answers every GET with a ConfigMap and records how it was asked: the
 * credentials a KubeClient sends, and over TLS the client certificate it presented.
 */
class RecordingApiServer {
  private constructor(
    private readonly server: http.Server,
    readonly requests: SeenRequest[],
  ) {}

  static async start(tls?: https.ServerOptions): Promise<RecordingApiServer> {
    const requests: SeenRequest[] = [];
    const handler = (request: IncomingMessage, response: ServerResponse) => {
      const socket = request.socket as TLSSocket;
      requests.push({
        path: request.url ?? '',
        headers: request.headersDistinct as Record<string, string[]>,
        clientCertificate:
          tls && socket.authorized ? String(socket.getPeerCertificate().subject.CN) : undefined,
      });
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(
        JSON.stringify({ metadata: { name: 'settings', namespace: 'default', uid: 'u-1' } }),
      );
    };
    const server = tls ? https.createServer(tls, handler) : http.createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new RecordingApiServer(server, requests);
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(scheme: 'http' | 'https'): string {
    return `${scheme}://127.0.0.1:${this.port}`;
  }

  get last(): SeenRequest {
    return this.requests.at(-1)!;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function kubeconfigYaml(cluster: Record<string, unknown>, user: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u', namespace: 'team-a' } }],
    'current-context': 'ctx',
  });
}

const readSettings = (client: KubeClient) =>
  client.get<KubeObject>(ConfigMapKind, 'default', 'settings');

describe('KubeClient credentials and TLS', () => {
  let tlsServer: RecordingApiServer;
  let plainServer: RecordingApiServer;
  let ca: Buffer;
  let clientCertificate: Buffer;
  let clientKey: Buffer;
  let directory: string;

  beforeAll(async () => {
    ca = await fixture('ca.pem');
    clientCertificate = await fixture('client.pem');
    clientKey = await fixture('client-key.pem');
    tlsServer = await RecordingApiServer.start({
      key: await fixture('server-key.pem'),
      cert: await fixture('server.pem'),
      ca,
      // Asks for a client certificate; requests without one are still answered.
      requestCert: true,
      rejectUnauthorized: false,
    });
    plainServer = await RecordingApiServer.start();
  });

  afterAll(async () => {
    await tlsServer.stop();
    await plainServer.stop();
  });

  afterEach(async () => {
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  it('verifies the server with the kubeconfig CA and presents the client certificate', async () => {
    const client = KubeClient.fromKubeconfigYaml(
      kubeconfigYaml(
        {
          server: tlsServer.url('https'),
          'certificate-authority-data': ca.toString('base64'),
        },
        {
          'client-certificate-data': clientCertificate.toString('base64'),
          'client-key-data': clientKey.toString('base64'),
        },
      ),
    );
    expect(await readSettings(client)).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings' },
    });
    expect(tlsServer.last).toMatchObject({
      path: '/api/v1/namespaces/default/configmaps/settings',
      clientCertificate: 'backup-operator',
    });
    expect(tlsServer.last.headers['user-agent']).toEqual(['platform-operator']);
    expect(tlsServer.last.headers.authorization).toBeUndefined();
    expect(client.currentNamespace()).toBe('team-a');
  });

  it('refuses a server certificate the CA did not sign, unless told to skip verification', async () => {
    const untrusting = KubeClient.fromKubeconfigYaml(
      kubeconfigYaml({ server: tlsServer.url('https') }, { token: 't' }),
    );
    await expect(readSettings(untrusting)).rejects.toThrow(/certificate/);

    const skipping = KubeClient.fromKubeconfigYaml(
      kubeconfigYaml(
        { server: tlsServer.url('https'), 'insecure-skip-tls-verify': true },
        { token: 'skip-token' },
      ),
    );
    expect(await readSettings(skipping)).toBeDefined();
    expect(tlsServer.last.headers.authorization).toEqual(['Bearer skip-token']);
    expect(tlsServer.last.clientCertificate).toBeUndefined();
  });

  it('checks the certificate against tls-server-name instead of the address', async () => {
    const cluster = {
      server: tlsServer.url('https'),
      'certificate-authority-data': ca.toString('base64'),
    };
    const named = KubeClient.fromKubeconfigYaml(
      kubeconfigYaml({ ...cluster, 'tls-server-name': 'api.test-cluster.internal' }, {}),
    );
    expect(await readSettings(named)).toBeDefined();
    const misnamed = KubeClient.fromKubeconfigYaml(
      kubeconfigYaml({ ...cluster, 'tls-server-name': 'other.internal' }, {}),
    );
    await expect(readSettings(misnamed)).rejects.toThrow(/other\.internal/);
  });

  it('uses the service account in a cluster and reads its rotated token again', async () => {
    directory = await mkdtemp(join(tmpdir(), 'serviceaccount-'));
    await writeFile(join(directory, 'ca.crt'), ca);
    await writeFile(join(directory, 'namespace'), 'backup-system');
    await writeFile(join(directory, 'token'), 'first-token\n');
    const inCluster = inClusterKubeconfig(
      { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String(tlsServer.port) },
      directory,
    );
    const rereading = new KubeClient(new KubeconfigAccess(inCluster, 0));
    const caching = new KubeClient(new KubeconfigAccess(inCluster));
    expect(rereading.currentNamespace()).toBe('backup-system');

    await readSettings(rereading);
    expect(tlsServer.last.headers.authorization).toEqual(['Bearer first-token']);
    await readSettings(caching);
    expect(tlsServer.last.headers.authorization).toEqual(['Bearer first-token']);

    await writeFile(join(directory, 'token'), 'rotated-token\n');
    await readSettings(rereading);
    expect(tlsServer.last.headers.authorization).toEqual(['Bearer rotated-token']);
    // Within a minute of reading it, the token is not read again.
    await readSettings(caching);
    expect(tlsServer.last.headers.authorization).toEqual(['Bearer first-token']);
  });

  it('sends basic credentials and impersonation headers', async () => {
    const client = KubeClient.fromKubeconfigYaml(
      kubeconfigYaml(
        { server: plainServer.url('http') },
        { username: 'admin', password: 's3cret', as: 'jane', 'as-groups': ['ops', 'dev'] },
      ),
    );
    await readSettings(client);
    expect(plainServer.last.headers).toMatchObject({
      authorization: [`Basic ${Buffer.from('admin:s3cret').toString('base64')}`],
      'impersonate-user': ['jane'],
      'impersonate-group': ['ops', 'dev'],
    });
  });

  it('runs exec credential plugins through the client library', async () => {
    const credential = JSON.stringify({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { token: 'token-from-plugin' },
    });
    const client = KubeClient.fromKubeconfigYaml(
      kubeconfigYaml(
        { server: plainServer.url('http'), 'insecure-skip-tls-verify': true },
        {
          exec: {
            apiVersion: 'client.authentication.k8s.io/v1',
            command: process.execPath,
            args: ['-e', `process.stdout.write(${JSON.stringify(credential)})`],
            interactiveMode: 'Never',
          },
        },
      ),
    );
    expect(client.currentNamespace()).toBe('team-a');
    await readSettings(client);
    expect(plainServer.last.headers.authorization).toEqual(['Bearer token-from-plugin']);
  });

  it('gives up on a request the server does not answer within the time limit', async () => {
    const silent = http.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const client = KubeClient.fromKubeconfigYaml(
        kubeconfigYaml({ server: `http://127.0.0.1:${port}` }, {}),
        { requestTimeoutMs: 100 },
      );
      await expect(readSettings(client)).rejects.toThrow(
        'GET /api/v1/namespaces/default/configmaps/settings: no answer within 100 ms',
      );
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
