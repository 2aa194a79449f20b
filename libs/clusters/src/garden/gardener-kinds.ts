import type { KindRef, KubeObject } from '@platform/kube';

/** The Gardener API group the garden cluster serves (`core.gardener.cloud/v1beta1`). */
const core = (kind: string, plural: string, namespaced: boolean): KindRef => ({
  group: 'core.gardener.cloud',
  version: 'v1beta1',
  kind,
  plural,
  namespaced,
});

export const GardenerKinds = {
  /** Cluster-scoped: one per platform project, owning the namespace its Shoots live in. */
  Project: core('Project', 'projects', false),
  /** Namespaced: a cluster. */
  Shoot: core('Shoot', 'shoots', true),
  /** Cluster-scoped: what a provider offers (versions, regions, machine types). */
  CloudProfile: core('CloudProfile', 'cloudprofiles', false),
} satisfies Record<string, KindRef>;

export interface ProjectSpec {
  namespace?: string;
  description?: string;
  purpose?: string;
}

export interface ProjectStatus {
  /** Pending, Ready, Failed, Terminating. */
  phase?: string;
}

export type GardenerProject = KubeObject<ProjectSpec, ProjectStatus>;

export interface ShootWorker {
  name: string;
  machine: { type: string; image?: unknown };
  minimum: number;
  maximum: number;
  zones?: string[];
  [field: string]: unknown;
}

export interface ShootSpec {
  cloudProfileName?: string;
  cloudProfile?: { kind?: string; name?: string };
  region?: string;
  credentialsBindingName?: string;
  secretBindingName?: string;
  kubernetes?: { version?: string; [field: string]: unknown };
  networking?: Record<string, unknown>;
  provider?: { type?: string; workers?: ShootWorker[]; [field: string]: unknown };
  [field: string]: unknown;
}

export interface ShootLastOperation {
  type?: string;
  state?: string;
  progress?: number;
  description?: string;
  lastUpdateTime?: string;
}

export interface ShootCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
}

export interface ShootStatus {
  lastOperation?: ShootLastOperation;
  conditions?: ShootCondition[];
}

export type Shoot = KubeObject<ShootSpec, ShootStatus>;

export interface CloudProfileVersion {
  version: string;
  /** preview, supported, deprecated. */
  classification?: string;
  expirationDate?: string;
}

export interface CloudProfileZone {
  name: string;
  unavailableMachineTypes?: string[];
}

export interface CloudProfileRegion {
  name: string;
  zones?: CloudProfileZone[];
}

export interface CloudProfileMachineType {
  name: string;
  cpu?: string | number;
  memory?: string | number;
  gpu?: string | number;
  architecture?: string;
  usable?: boolean;
}

export interface CloudProfileSpec {
  /** The provider extension, e.g. `openstack`, `aws`: a Shoot's `spec.provider.type`. */
  type?: string;
  kubernetes?: { versions?: CloudProfileVersion[] };
  regions?: CloudProfileRegion[];
  machineTypes?: CloudProfileMachineType[];
}

export type CloudProfile = KubeObject<CloudProfileSpec>;
