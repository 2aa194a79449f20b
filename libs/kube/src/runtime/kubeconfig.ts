import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { isAbsolute, join } from 'node:path';
import { parse } from 'yaml';

/**
 * The current context of a kubeconfig, resolved to what a request needs: the server, TLS
 * material and credentials, as client-go reads them. Credentials that run code or talk to
 * someone else (exec plugins, auth providers) and proxies are only flagged here; the client
 * hands such configurations to @kubernetes/client-node.
 */
export interface ResolvedKubeconfig {
  server: string;
  /** The context's namespace (the pod's own namespace in-cluster). */
  namespace: string | undefined;
  tls: {
    ca?: Buffer;
    cert?: Buffer;
    key?: Buffer;
    insecureSkipTlsVerify: boolean;
    serverName?: string;
  };
  credentials: {
    token?: string;
    /** Read again from time to time: projected service account tokens rotate. */
    tokenFile?: string;
    basic?: { username: string; password: string };
    impersonate?: { user: string; groups: string[] };
  };
  /** Set when the user runs an exec plugin or auth provider, or the cluster has a proxy-url. */
  delegated?: 'exec' | 'auth-provider' | 'proxy-url';
}

export const SERVICE_ACCOUNT_DIRECTORY = '/var/run/secrets/kubernetes.io/serviceaccount';

type Entry<K extends string> = { name?: unknown } & Partial<Record<K, Record<string, unknown>>>;

interface KubeconfigDocument {
  clusters?: Entry<'cluster'>[];
  users?: Entry<'user'>[];
  contexts?: Entry<'context'>[];
  'current-context'?: unknown;
}

/**
 * Resolves the current context of kubeconfig text. Relative file references (certificates,
 * keys, token files) are relative to `directory`, the kubeconfig file's folder.
 */
export function resolveKubeconfig(text: string, directory?: string): ResolvedKubeconfig {
  const document = (parse(text) ?? {}) as KubeconfigDocument;
  if (typeof document !== 'object' || Array.isArray(document)) {
    throw new Error('the kubeconfig is not a YAML mapping');
  }
  const contextName = stringField(document['current-context']);
  if (!contextName) throw new Error('the kubeconfig has no current-context');
  const context = find(document.contexts, 'context', contextName);
  const clusterName = stringField(context.cluster);
  if (!clusterName) throw new Error(`the context "${contextName}" names no cluster`);
  const cluster = find(document.clusters, 'cluster', clusterName);
  const userName = stringField(context.user);
  const user = userName ? find(document.users, 'user', userName) : {};

  const server = stringField(cluster.server)?.replace(/\/+$/, '');
  if (!server) throw new Error(`the cluster "${clusterName}" has no server`);
  const file = (value: unknown) => {
    const path = stringField(value);
    if (!path) return undefined;
    return directory && !isAbsolute(path) ? join(directory, path) : path;
  };
  const material = (dataField: string, fileField: string, owner: Record<string, unknown>) => {
    const data = stringField(owner[dataField]);
    if (data) return Buffer.from(data, 'base64');
    const path = file(owner[fileField]);
    return path ? readFileSync(path) : undefined;
  };

  const username = stringField(user.username);
  const impersonatedUser = stringField(user.as);
  const delegated = user.exec
    ? 'exec'
    : user['auth-provider']
      ? 'auth-provider'
      : stringField(cluster['proxy-url'])
        ? 'proxy-url'
        : undefined;
  return {
    server,
    namespace: stringField(context.namespace),
    tls: {
      ca: material('certificate-authority-data', 'certificate-authority', cluster),
      cert: material('client-certificate-data', 'client-certificate', user),
      key: material('client-key-data', 'client-key', user),
      insecureSkipTlsVerify: cluster['insecure-skip-tls-verify'] === true,
      serverName: stringField(cluster['tls-server-name']),
    },
    credentials: {
      token: stringField(user.token),
      tokenFile: file(user.tokenFile),
      basic: username ? { username, password: stringField(user.password) ?? '' } : undefined,
      impersonate: impersonatedUser
        ? {
            user: impersonatedUser,
            groups: Array.isArray(user['as-groups']) ? user['as-groups'].map(String) : [],
          }
        : undefined,
    },
    delegated,
  };
}

/** The pod's service account: the API server from the environment, its CA, token and namespace. */
export function inClusterKubeconfig(
  env: Record<string, string | undefined> = process.env,
  directory = SERVICE_ACCOUNT_DIRECTORY,
): ResolvedKubeconfig {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new Error(
      'not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set, and KUBECONFIG names no file',
    );
  }
  const namespaceFile = join(directory, 'namespace');
  const caFile = join(directory, 'ca.crt');
  return {
    server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`,
    namespace: existsSync(namespaceFile)
      ? readFileSync(namespaceFile, 'utf8').trim() || undefined
      : undefined,
    tls: {
      ca: existsSync(caFile) ? readFileSync(caFile) : undefined,
      insecureSkipTlsVerify: false,
    },
    credentials: { tokenFile: join(directory, 'token') },
  };
}

function find<K extends 'cluster' | 'user' | 'context'>(
  entries: Entry<K>[] | undefined,
  field: K,
  name: string,
): Record<string, unknown> {
  const entry = (Array.isArray(entries) ? entries : []).find((item) => item?.name === name);
  if (!entry) throw new Error(`the kubeconfig has no ${field} named "${name}"`);
  return entry[field] ?? {};
}

function stringField(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  return value.trim() === '' ? undefined : value;
}
