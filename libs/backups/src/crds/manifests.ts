import {
  crdFileName,
  type CustomResourceDefinition,
  type JsonSchema,
  type PrinterColumn,
  renderCrdManifest,
  type Schema,
} from '@platform/kube';
import { BACKUP_GROUP, BACKUP_VERSION } from '../api/kinds.js';
import { s3BackupSpec, s3BackupStatus } from './definitions/s3-backup.js';
import { volumeBackupSpec, volumeBackupStatus } from './definitions/volume-backup.js';
import { volumeRestoreSpec, volumeRestoreStatus } from './definitions/volume-restore.js';
import {
  volumeSnapshotBackupSpec,
  volumeSnapshotBackupStatus,
} from './definitions/volume-snapshot-backup.js';

/** Where the chart keeps the generated manifests, relative to the repository root. */
export const BACKUP_CRD_FOLDER = 'charts/backup-operator/crds';

/** Everything a CustomResourceDefinition of the group is generated from. */
export interface BackupKindDefinition {
  kind: string;
  plural: string;
  shortName: string;
  description: string;
  spec: Schema<unknown, unknown, boolean>;
  status: Schema<unknown, unknown, boolean>;
  /** Columns between the name and the age (which every kind shows last). */
  columns: PrinterColumn[];
}

const column = (
  name: string,
  type: PrinterColumn['type'],
  jsonPath: string,
  priority?: number,
): PrinterColumn => (priority ? { name, type, jsonPath, priority } : { name, type, jsonPath });

const PHASE = column('Phase', 'string', '.status.phase');

export const BACKUP_KIND_DEFINITIONS: readonly BackupKindDefinition[] = [
  {
    kind: 'VolumeBackup',
    plural: 'volumebackups',
    shortName: 'vb',
    description: 'Scheduled backup of a persistent volume claim into a backup repository.',
    spec: volumeBackupSpec,
    status: volumeBackupStatus,
    columns: [
      PHASE,
      column('Schedule', 'string', '.spec.schedule'),
      column('Suspended', 'boolean', '.spec.suspended', 1),
      column('Last Backup', 'date', '.status.lastBackup'),
      column('Snapshot', 'string', '.status.lastSnapshot', 1),
      column('Size', 'string', '.status.volumeSize', 1),
    ],
  },
  {
    kind: 'VolumeRestore',
    plural: 'volumerestores',
    shortName: 'vr',
    description: 'One-time restore of a snapshot into a new or existing persistent volume claim.',
    spec: volumeRestoreSpec,
    status: volumeRestoreStatus,
    columns: [
      PHASE,
      column('Progress', 'number', '.status.progress.percentComplete'),
      column('Target', 'string', '.status.targetInfo.pvcName', 1),
      column('Completion', 'date', '.status.completionTime'),
    ],
  },
  {
    kind: 'VolumeSnapshotBackup',
    plural: 'volumesnapshotbackups',
    shortName: 'vsb',
    description: 'Backup of a persistent volume claim through a block storage snapshot.',
    spec: volumeSnapshotBackupSpec,
    status: volumeSnapshotBackupStatus,
    columns: [
      PHASE,
      column('Last Backup', 'date', '.status.lastBackup.timestamp'),
      column('Result', 'string', '.status.lastBackup.status', 1),
    ],
  },
  {
    kind: 'S3Backup',
    plural: 's3backups',
    shortName: 's3b',
    description: 'Scheduled backup of an S3 bucket (or a prefix of it) into a backup repository.',
    spec: s3BackupSpec,
    status: s3BackupStatus,
    columns: [
      PHASE,
      column('Bucket', 'string', '.spec.source.bucket'),
      column('Schedule', 'string', '.spec.schedule'),
      column('Suspended', 'boolean', '.spec.suspended', 1),
      column('Last Backup', 'date', '.status.lastBackup'),
      column('Snapshot', 'string', '.status.lastSnapshot', 1),
      column('Size', 'string', '.status.size', 1),
    ],
  },
];

const AGE = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' } as const;

function rootSchema(definition: BackupKindDefinition): JsonSchema {
  return {
    type: 'object',
    description: definition.description,
    required: ['spec'],
    properties: {
      apiVersion: {
        type: 'string',
        description: 'Versioned schema of this representation of an object.',
      },
      kind: { type: 'string', description: 'REST resource this object represents.' },
      metadata: { type: 'object' },
      spec: definition.spec.schema,
      status: definition.status.schema,
    },
  };
}

export function backupCrd(definition: BackupKindDefinition): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${definition.plural}.${BACKUP_GROUP}`,
      labels: {
        'app.kubernetes.io/name': 'backup-operator',
        'app.kubernetes.io/part-of': 'backup-operator',
      },
    },
    spec: {
      group: BACKUP_GROUP,
      names: {
        kind: definition.kind,
        listKind: `${definition.kind}List`,
        plural: definition.plural,
        singular: definition.kind.toLowerCase(),
        shortNames: [definition.shortName],
        categories: ['backups'],
      },
      scope: 'Namespaced',
      versions: [
        {
          name: BACKUP_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [...definition.columns, AGE],
          schema: { openAPIV3Schema: rootSchema(definition) },
        },
      ],
    },
  };
}

/** The CustomResourceDefinitions of the group, ordered by file name. */
export function backupCrds(): CustomResourceDefinition[] {
  return BACKUP_KIND_DEFINITIONS.map((definition) => backupCrd(definition)).sort((a, b) =>
    a.metadata.name.localeCompare(b.metadata.name),
  );
}

/** The manifest file as committed: a header, then the CRD as YAML. */
export function backupCrdManifest(crd: CustomResourceDefinition): string {
  return renderCrdManifest(crd, [
    `${crd.spec.names.kind} of ${crd.spec.group}/${BACKUP_VERSION}, generated from`,
    'libs/backups/src/crds by `npm run crds:backups`: edit the source, not this file.',
    'Helm installs it with the chart but never upgrades it: apply a changed version with',
    '`kubectl apply --server-side -f` before upgrading.',
  ]);
}

/** File name to content of every manifest. */
export function backupCrdManifests(): Map<string, string> {
  return new Map(backupCrds().map((crd) => [crdFileName(crd), backupCrdManifest(crd)]));
}
