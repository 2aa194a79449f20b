import type { V1ObjectMeta } from '@kubernetes/client-node';
import { ownerReference } from '@platform/kube';
import type { GroupwareInstance } from '../crds/types.js';
import { OccLabels } from '../occ/occ-job.js';

/** Held until deletion work (backup data cleanup) is done. */
export const INSTANCE_FINALIZER = 'k8s.neutral.com/groupware-instance';

export const MANAGED_BY = 'groupware-operator';

/** Every object made for an instance carries these; the operator watches only those. */
export const InstanceLabels = {
  instance: OccLabels.instance,
  managedBy: 'app.kubernetes.io/managed-by',
} as const;

/** The Flux source of the Nextcloud chart, one per namespace, shared by its instances. */
export const HELM_REPOSITORY = { name: 'nextcloud', url: 'https://nextcloud.github.io/helm/' };

/** Names of what the operator writes for instance `name` (5-groupware-operator.md). */
export function instanceObjectNames(name: string) {
  return {
    adminSecret: `${name}-admin`,
    release: name,
    database: `${name}-db`,
    /** Written by CloudNativePG: the application user's credentials. */
    databaseSecret: `${name}-db-app`,
    /** Written by CloudNativePG: the service of the primary. */
    databaseService: `${name}-db-rw`,
    dataBackup: `${name}-data-backup`,
    dataCleanup: `${name}-data-cleanup`,
    /** The chart's claim, with fullnameOverride set to the instance name. */
    claim: `${name}-nextcloud`,
    tlsSecret: `${name}-tls`,
  };
}

/** Metadata of an object owned by the instance (garbage-collected with it). */
export function ownedMetadata(instance: GroupwareInstance, name: string): V1ObjectMeta {
  return {
    name,
    namespace: instance.metadata.namespace,
    labels: {
      [InstanceLabels.instance]: instance.metadata.name!,
      [InstanceLabels.managedBy]: MANAGED_BY,
    },
    ownerReferences: [ownerReference(instance)],
  };
}
