/** Identifies a resource kind; structurally the same as `KindRef` of @platform/kube. */
export interface KindRef {
  /** '' for the core group */
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

export interface KindRegistration extends KindRef {
  statusSubresource?: boolean;
  shortNames?: string[];
  /** What a DELETE without propagationPolicy does with dependents (default Background). */
  defaultPropagationPolicy?: 'Background' | 'Orphan';
  /** Custom resources refuse a PUT without metadata.resourceVersion; built-in kinds take it. */
  requireResourceVersionOnUpdate?: boolean;
  /** OpenAPI v3 schema of a custom resource version (defaults and validation). */
  schema?: JsonSchema;
}

/** The subset of a structural OpenAPI v3 schema the server applies. */
export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  additionalProperties?: boolean | JsonSchema;
  required?: string[];
  default?: unknown;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  nullable?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
}

export function apiVersionOf(kind: KindRef): string {
  return kind.group ? `${kind.group}/${kind.version}` : kind.version;
}

/** `pods` for the core group, `volumebackups.backups.k8s.neutral.com` otherwise (as in messages). */
export function qualifiedResource(kind: KindRef): string {
  return kind.group ? `${kind.plural}.${kind.group}` : kind.plural;
}

export function kindKey(kind: Pick<KindRef, 'group' | 'version' | 'plural'>): string {
  return `${kind.group}/${kind.version}/${kind.plural}`;
}

const core = (kind: string, plural: string, namespaced: boolean, statusSubresource: boolean) => ({
  group: '',
  version: 'v1',
  kind,
  plural,
  namespaced,
  statusSubresource,
});

/** Kinds every server knows from the start. */
export const BUILT_IN_KINDS: KindRegistration[] = [
  { ...core('Pod', 'pods', true, true), shortNames: ['po'] },
  { ...core('PersistentVolumeClaim', 'persistentvolumeclaims', true, true), shortNames: ['pvc'] },
  { ...core('PersistentVolume', 'persistentvolumes', false, true), shortNames: ['pv'] },
  core('Secret', 'secrets', true, false),
  { ...core('Event', 'events', true, false), shortNames: ['ev'] },
  { ...core('ConfigMap', 'configmaps', true, false), shortNames: ['cm'] },
  { ...core('Namespace', 'namespaces', false, true), shortNames: ['ns'] },
  {
    group: 'batch',
    version: 'v1',
    kind: 'Job',
    plural: 'jobs',
    namespaced: true,
    statusSubresource: true,
    // batch/v1 keeps a Job's pods unless the request asks otherwise.
    defaultPropagationPolicy: 'Orphan',
  },
  {
    group: 'batch',
    version: 'v1',
    kind: 'CronJob',
    plural: 'cronjobs',
    namespaced: true,
    statusSubresource: true,
    shortNames: ['cj'],
  },
  {
    group: 'coordination.k8s.io',
    version: 'v1',
    kind: 'Lease',
    plural: 'leases',
    namespaced: true,
  },
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
    statusSubresource: true,
    shortNames: ['crd', 'crds'],
  },
];

export const CRD_KIND = BUILT_IN_KINDS.find((kind) => kind.kind === 'CustomResourceDefinition')!;
export const NAMESPACE_KIND = BUILT_IN_KINDS.find((kind) => kind.kind === 'Namespace')!;
export const POD_KIND = BUILT_IN_KINDS.find((kind) => kind.kind === 'Pod')!;
