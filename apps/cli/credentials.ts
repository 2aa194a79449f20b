import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** What `platform login` stores: where the API is and the session's token. */
export interface Credentials {
  api_url: string;
  token: string;
  login: string;
  expires_at: string;
}

export type Env = Record<string, string | undefined>;

/** `$XDG_CONFIG_HOME/platform/credentials.json`, else `~/.config/platform/credentials.json`. */
export function credentialsPath(env: Env): string {
  const configHome = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(configHome, 'platform', 'credentials.json');
}

export async function readCredentials(env: Env): Promise<Credentials | undefined> {
  try {
    return JSON.parse(await readFile(credentialsPath(env), 'utf8')) as Credentials;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Writes the file readable by its owner only. The mode is set again after writing because
 * `writeFile`'s mode applies only when it creates the file.
 */
export async function writeCredentials(env: Env, credentials: Credentials): Promise<string> {
  const path = credentialsPath(env);
  await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
  await writeFile(path, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
  return path;
}

export async function deleteCredentials(env: Env): Promise<void> {
  await rm(credentialsPath(env), { force: true });
}
