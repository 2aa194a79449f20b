import { CoreKinds, KubeApiError, type KubeClient, type KubeObject } from '@platform/kube';
import type { KeystoneCredentials, TokenScope } from '@platform/openstack-client';

/** Credentials, scope and region of one Secret: what an OpenStack session is made from. */
export interface CloudAccess {
  credentials: KeystoneCredentials;
  scope: TokenScope;
  region: string | null;
  /** Changes whenever the Secret does: sessions (and their tokens) are kept per version. */
  version: string;
}

/** Why the Secret gives no access: reported in status, retried when the Secret changes. */
export class CredentialsUnavailable extends Error {
  override readonly name = 'CredentialsUnavailable';
}

type SecretObject = KubeObject & { data?: Record<string, string> };

/**
 * Reads the OpenStack credentials from a Secret, under the names OpenStack users know from
 * clouds.yaml (`auth_url`, `username`, `project_name`, ...) or as `OS_*` environment variables
 * (`OS_AUTH_URL`, ...): a password user with a project by id or by name in its domain, or an
 * application credential (which carries its project). The region is the resource's, else the
 * Secret's `region_name`, else the first public endpoint's.
 */
export async function readCloudAccess(
  client: KubeClient,
  ref: { name: string; namespace: string },
  region: string | undefined,
): Promise<CloudAccess> {
  const where = `Secret ${ref.namespace}/${ref.name}`;
  let secret: SecretObject | undefined;
  try {
    secret = await client.get<SecretObject>(CoreKinds.Secret, ref.namespace, ref.name);
  } catch (error) {
    if (error instanceof KubeApiError && error.status === 403) {
      throw new CredentialsUnavailable(`${where} may not be read: ${error.message}`);
    }
    throw error;
  }
  if (!secret) throw new CredentialsUnavailable(`${where} does not exist`);
  const value = (key: string) => {
    const encoded = secret.data?.[key] ?? secret.data?.[`OS_${key.toUpperCase()}`];
    const text = encoded ? Buffer.from(encoded, 'base64').toString('utf8').trim() : '';
    return text || undefined;
  };
  const authUrl = value('auth_url');
  if (!authUrl) throw new CredentialsUnavailable(`${where} has no auth_url (OS_AUTH_URL)`);
  const version = `${secret.metadata.uid ?? ''}/${secret.metadata.resourceVersion ?? ''}`;
  const chosenRegion = region ?? value('region_name') ?? value('region') ?? null;
  const appId = value('application_credential_id');
  if (appId) {
    const appSecret = value('application_credential_secret');
    if (!appSecret) {
      throw new CredentialsUnavailable(`${where} has application_credential_id but no secret`);
    }
    return {
      credentials: { authUrl, applicationCredential: { id: appId, secret: appSecret } },
      // The application credential's own project; the key only keeps tokens apart.
      scope: { projectId: `application-credential:${appId}` },
      region: chosenRegion,
      version,
    };
  }
  const username = value('username');
  const password = value('password');
  if (!username || !password) {
    throw new CredentialsUnavailable(
      `${where} has neither username and password nor application_credential_id`,
    );
  }
  const projectId = value('project_id') ?? value('tenant_id');
  const projectName = value('project_name') ?? value('tenant_name');
  if (!projectId && !projectName) {
    throw new CredentialsUnavailable(`${where} names no project (project_id or project_name)`);
  }
  const projectDomain = value('project_domain_name') ?? 'Default';
  return {
    credentials: {
      authUrl,
      username,
      password,
      userDomain: value('user_domain_name') ?? 'Default',
      projectDomain,
    },
    scope: projectId ? { projectId } : { projectName: projectName!, projectDomain },
    region: chosenRegion,
    version,
  };
}
