import { writeCrdManifests } from '@platform/kube';
import { BACKUP_CRD_FOLDER, backupCrdManifests } from './manifests.js';

/** Writes the chart's CRD manifests from the schema source (run from the repository root). */
const written = writeCrdManifests(BACKUP_CRD_FOLDER, backupCrdManifests());
console.log(`wrote ${written} manifests to ${BACKUP_CRD_FOLDER}`);
