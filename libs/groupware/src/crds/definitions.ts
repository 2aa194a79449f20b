import type { KindRef, PrinterColumn, Schema } from '@platform/kube';
import { groupwareInstanceSpec, groupwareInstanceStatus } from './groupware-instance.js';
import {
  groupwarePoolSpec,
  groupwarePoolStatus,
  groupwareProfileSpec,
  groupwareProfileStatus,
  groupwareSpec,
  groupwareStatus,
  recordingServerSpec,
  signalingServerSpec,
  talkServerStatus,
} from './other-kinds.js';

export const GROUPWARE_GROUP = 'k8s.neutral.com';
export const GROUPWARE_VERSION = 'v1alpha1';

/** Everything a CustomResourceDefinition of the group is generated from. */
export interface GroupwareKindDefinition {
  kind: string;
  plural: string;
  shortName: string;
  scope: 'Namespaced' | 'Cluster';
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
// kubectl shows the Ready condition's status: True, False or Unknown.
const READY = column('Ready', 'string', '.status.conditions[?(@.type=="Ready")].status');

export const GROUPWARE_KINDS = {
  Groupware: {
    kind: 'Groupware',
    plural: 'groupwares',
    shortName: 'gw',
    scope: 'Namespaced',
    description: 'Tenant-facing groupware: a claimed pooled instance or one of its own.',
    spec: groupwareSpec,
    status: groupwareStatus,
    columns: [
      PHASE,
      column('Version', 'string', '.spec.version'),
      READY,
      column('Instance', 'string', '.status.instanceRef.name', 1),
      column('Pool', 'string', '.status.claimedFromPool', 1),
      column('URL', 'string', '.status.url', 1),
    ],
  },
  GroupwareInstance: {
    kind: 'GroupwareInstance',
    plural: 'groupwareinstances',
    shortName: 'gwi',
    scope: 'Namespaced',
    description: 'A groupware (Nextcloud) deployment with its database, secrets and backups.',
    spec: groupwareInstanceSpec,
    status: groupwareInstanceStatus,
    columns: [
      PHASE,
      column('Version', 'string', '.status.versionResolution.resolvedVersion'),
      READY,
      column('Requested', 'string', '.spec.version', 1),
      column('Profile', 'string', '.spec.profile', 1),
      column('URL', 'string', '.status.url', 1),
    ],
  },
  GroupwarePool: {
    kind: 'GroupwarePool',
    plural: 'groupwarepools',
    shortName: 'gwpool',
    scope: 'Cluster',
    description: 'Warm groupware instances kept Ready for Groupware objects to claim.',
    spec: groupwarePoolSpec,
    status: groupwarePoolStatus,
    columns: [
      column('Size', 'integer', '.spec.size'),
      column('Version', 'string', '.spec.template.version'),
      column('Ready', 'integer', '.status.ready'),
      column('Claimed', 'integer', '.status.claimed'),
      column('Creating', 'integer', '.status.creating', 1),
      column('Namespace', 'string', '.spec.namespace', 1),
    ],
  },
  GroupwareProfile: {
    kind: 'GroupwareProfile',
    plural: 'groupwareprofiles',
    shortName: 'gwprofile',
    scope: 'Cluster',
    description: 'Reusable defaults of groupware instances.',
    spec: groupwareProfileSpec,
    status: groupwareProfileStatus,
    columns: [
      column('Chart', 'string', '.spec.helm.version'),
      column('Instances', 'integer', '.status.instances'),
      column('Description', 'string', '.spec.description', 1),
    ],
  },
  SignalingServer: {
    kind: 'SignalingServer',
    plural: 'signalingservers',
    shortName: 'ss',
    scope: 'Cluster',
    description: 'A Talk signaling server registered with every Ready instance running Talk.',
    spec: signalingServerSpec,
    status: talkServerStatus,
    columns: [column('URL', 'string', '.spec.url'), READY],
  },
  RecordingServer: {
    kind: 'RecordingServer',
    plural: 'recordingservers',
    shortName: 'rs',
    scope: 'Cluster',
    description: 'A Talk recording server registered with every Ready instance running Talk.',
    spec: recordingServerSpec,
    status: talkServerStatus,
    columns: [column('URL', 'string', '.spec.url'), READY],
  },
} as const satisfies Record<string, GroupwareKindDefinition>;

export type GroupwareKindName = keyof typeof GROUPWARE_KINDS;

/** The runtime's reference to each kind, e.g. `GroupwareKindRefs.GroupwareInstance`. */
export const GroupwareKindRefs = Object.fromEntries(
  Object.values(GROUPWARE_KINDS).map((definition) => [
    definition.kind,
    {
      group: GROUPWARE_GROUP,
      version: GROUPWARE_VERSION,
      kind: definition.kind,
      plural: definition.plural,
      namespaced: definition.scope === 'Namespaced',
    },
  ]),
) as Record<GroupwareKindName, KindRef>;
