import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GROUPWARE_CRD_FOLDER, groupwareCrdManifests } from './manifests.js';

/**
 * Writes the chart's CRD manifests from the schema source (run from the repository root);
 * manifests of kinds that no longer exist are removed.
 */
const manifests = groupwareCrdManifests();
mkdirSync(GROUPWARE_CRD_FOLDER, { recursive: true });
for (const file of readdirSync(GROUPWARE_CRD_FOLDER)) {
  if (file.endsWith('.yaml') && !manifests.has(file)) rmSync(join(GROUPWARE_CRD_FOLDER, file));
}
for (const [file, content] of manifests) writeFileSync(join(GROUPWARE_CRD_FOLDER, file), content);
console.log(`wrote ${manifests.size} manifests to ${GROUPWARE_CRD_FOLDER}`);
