import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { CustomResourceDefinition } from '@platform/kube';

export * from './manifests.js';

const CRD_FOLDER = join('charts', 'backup-operator', 'crds');

/**
 * The folder of the CRD manifests. Found by walking up from this module (the sources under
 * jest, or any compiled copy under dist/) and then from the working directory, so it does
 * not depend on how deep the compiled output is nested.
 */
export function backupCrdDirectory(): string {
  const starts = [dirname(fileURLToPath(import.meta.url)), process.cwd()];
  for (const start of starts) {
    for (let directory = start; ; directory = dirname(directory)) {
      const candidate = join(directory, CRD_FOLDER);
      if (existsSync(candidate)) return candidate;
      if (dirname(directory) === directory) break;
    }
  }
  throw new Error(`${CRD_FOLDER} not found above ${starts.join(' or ')}`);
}

/** The CustomResourceDefinitions of backups.k8s.neutral.com, ordered by file name. */
export function loadBackupCrds(): CustomResourceDefinition[] {
  const directory = backupCrdDirectory();
  return readdirSync(directory)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => parse(readFileSync(join(directory, file), 'utf8')) as CustomResourceDefinition);
}

/** One CRD by its plural resource name, e.g. `volumebackups`. */
export function loadBackupCrd(plural: string): CustomResourceDefinition {
  const crd = loadBackupCrds().find((candidate) => candidate.spec.names.plural === plural);
  if (!crd) throw new Error(`no CustomResourceDefinition for ${plural}`);
  return crd;
}
