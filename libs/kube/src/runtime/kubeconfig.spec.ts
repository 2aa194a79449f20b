import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { inClusterKubeconfig, resolveKubeconfig } from './kubeconfig.js';

const base64 = (text: string) => Buffer.from(text).toString('base64');

function kubeconfig(cluster: object, user: object, context: object = {}): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: 'other', cluster: { server: 'https://other.example' } },
      { name: 'edge', cluster },
    ],
    users: [{ name: 'edge-admin', user }],
    contexts: [
      { name: 'elsewhere', context: { cluster: 'other', user: 'edge-admin' } },
      { name: 'edge', context: { cluster: 'edge', user: 'edge-admin', ...context } },
    ],
    'current-context': 'edge',
  });
}

describe('resolveKubeconfig', () => {
  const directory = mkdtempSync(join(tmpdir(), 'kubeconfig-spec-'));
  writeFileSync(join(directory, 'ca.crt'), 'CA FROM FILE');
  writeFileSync(join(directory, 'client.crt'), 'CERT FROM FILE');
  writeFileSync(join(directory, 'client.key'), 'KEY FROM FILE');

  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('resolves the current context: server, namespace, inline TLS material and token', () => {
    const config = resolveKubeconfig(
      kubeconfig(
        {
          server: 'https://edge.example:6443/',
          'certificate-authority-data': base64('CA'),
          'tls-server-name': 'api.edge.internal',
        },
        {
          token: 'secret-token',
          'client-certificate-data': base64('CERT'),
          'client-key-data': base64('KEY'),
        },
        { namespace: 'backups' },
      ),
    );
    expect(config).toEqual({
      server: 'https://edge.example:6443',
      namespace: 'backups',
      tls: {
        ca: Buffer.from('CA'),
        cert: Buffer.from('CERT'),
        key: Buffer.from('KEY'),
        insecureSkipTlsVerify: false,
        serverName: 'api.edge.internal',
      },
      credentials: {
        token: 'secret-token',
        tokenFile: undefined,
        basic: undefined,
        impersonate: undefined,
      },
      delegated: undefined,
    });
  });

  it('reads files relative to the kubeconfig folder, and leaves the token file for later', () => {
    const config = resolveKubeconfig(
      kubeconfig(
        { server: 'https://edge.example', 'certificate-authority': 'ca.crt' },
        {
          'client-certificate': join(directory, 'client.crt'),
          'client-key': 'client.key',
          tokenFile: 'token',
        },
      ),
      directory,
    );
    expect(config.tls).toMatchObject({
      ca: Buffer.from('CA FROM FILE'),
      cert: Buffer.from('CERT FROM FILE'),
      key: Buffer.from('KEY FROM FILE'),
    });
    expect(config.credentials.tokenFile).toBe(join(directory, 'token'));
    expect(config.namespace).toBeUndefined();
  });

  it('takes basic credentials, impersonation and insecure-skip-tls-verify', () => {
    const config = resolveKubeconfig(
      kubeconfig(
        { server: 'http://127.0.0.1:8080', 'insecure-skip-tls-verify': true },
        { username: 'admin', password: 'pw', as: 'jane', 'as-groups': ['ops', 'dev'] },
      ),
    );
    expect(config.tls.insecureSkipTlsVerify).toBe(true);
    expect(config.credentials).toMatchObject({
      basic: { username: 'admin', password: 'pw' },
      impersonate: { user: 'jane', groups: ['ops', 'dev'] },
    });
  });

  it('flags exec plugins, auth providers and proxies for the full client library', () => {
    const exec = { apiVersion: 'client.authentication.k8s.io/v1', command: 'get-token' };
    const server = 'https://edge.example';
    expect(resolveKubeconfig(kubeconfig({ server }, { exec })).delegated).toBe('exec');
    expect(
      resolveKubeconfig(kubeconfig({ server }, { 'auth-provider': { name: 'oidc' } })).delegated,
    ).toBe('auth-provider');
    expect(
      resolveKubeconfig(kubeconfig({ server, 'proxy-url': 'http://proxy:3128' }, {})).delegated,
    ).toBe('proxy-url');
  });

  it('names what is missing', () => {
    expect(() => resolveKubeconfig('clusters: []\n')).toThrow(
      'the kubeconfig has no current-context',
    );
    expect(() => resolveKubeconfig('- a\n- b\n')).toThrow('the kubeconfig is not a YAML mapping');
    expect(() =>
      resolveKubeconfig(JSON.stringify({ 'current-context': 'nowhere', contexts: [] })),
    ).toThrow('the kubeconfig has no context named "nowhere"');
    expect(() =>
      resolveKubeconfig(
        JSON.stringify({
          'current-context': 'c',
          contexts: [{ name: 'c', context: { cluster: 'gone', user: 'u' } }],
        }),
      ),
    ).toThrow('the kubeconfig has no cluster named "gone"');
    expect(() => resolveKubeconfig(kubeconfig({}, {}))).toThrow('the cluster "edge" has no server');
  });
});

describe('inClusterKubeconfig', () => {
  const directory = mkdtempSync(join(tmpdir(), 'serviceaccount-'));
  writeFileSync(join(directory, 'ca.crt'), 'CLUSTER CA');
  writeFileSync(join(directory, 'namespace'), 'backup-system\n');

  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('reaches the API server of the environment with the service account', () => {
    const config = inClusterKubeconfig(
      { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' },
      directory,
    );
    expect(config).toEqual({
      server: 'https://10.96.0.1:443',
      namespace: 'backup-system',
      tls: { ca: Buffer.from('CLUSTER CA'), insecureSkipTlsVerify: false },
      credentials: { tokenFile: join(directory, 'token') },
    });
  });

  it('brackets an IPv6 service address', () => {
    const config = inClusterKubeconfig(
      { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '6443' },
      directory,
    );
    expect(config.server).toBe('https://[fd00::1]:6443');
  });

  it('refuses outside a cluster', () => {
    expect(() => inClusterKubeconfig({}, directory)).toThrow(
      'not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set, and KUBECONFIG names no file',
    );
  });
});
