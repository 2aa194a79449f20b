import { type KindRef, type KubeObject, ThirdPartyKinds } from '@platform/kube';

/*
 * Where apps and workspaces live in the apps cluster. Other parts of the platform (the
 * registry push of a webhook, which pins an app's image digest) find apps by this layout, so
 * names, labels and value paths here are a contract, not an implementation detail.
 */

export const HelmReleaseKind: KindRef = ThirdPartyKinds.HelmRelease;
export const HelmRepositoryKind: KindRef = ThirdPartyKinds.HelmRepository;

export const GroupwareKind: KindRef = {
  group: 'k8s.neutral.com',
  version: 'v1alpha1',
  kind: 'Groupware',
  plural: 'groupwares',
  namespaced: true,
};

export const GroupwareProfileKind: KindRef = {
  group: 'k8s.neutral.com',
  version: 'v1alpha1',
  kind: 'GroupwareProfile',
  plural: 'groupwareprofiles',
  namespaced: false,
};

export const NamespaceKind: KindRef = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
};

export const PlatformLabels = {
  organization: 'platform.neutral.com/organization-id',
  project: 'platform.neutral.com/project-id',
  appKind: 'platform.neutral.com/app-kind',
  appId: 'platform.neutral.com/app-id',
  workspaceId: 'platform.neutral.com/workspace-id',
} as const;

/** The platform's own namespace of the apps cluster: the chart sources of every app kind. */
export const PLATFORM_APPS_NAMESPACE = 'platform-apps';

const firstHex = (uuid: string) => uuid.replace(/-/g, '').slice(0, 8).toLowerCase();

/** A project's apps: `app-` and the first 8 hex digits of the project's uuid. */
export const appNamespace = (projectId: string) => `app-${firstHex(projectId)}`;

/** An organization's workspaces: `ws-` and the first 8 hex digits of its uuid. */
export const workspaceNamespace = (organizationId: string) => `ws-${firstHex(organizationId)}`;

export interface Condition {
  type: string;
  /** 'True', 'False' or 'Unknown'. */
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface HelmReleaseSpec {
  interval?: string;
  chart?: {
    spec: {
      chart: string;
      version?: string;
      sourceRef: { kind: string; name: string; namespace?: string };
    };
  };
  values?: Record<string, unknown>;
  [field: string]: unknown;
}

export interface HelmReleaseStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  /** Flux v2: the chart version of the last install or upgrade attempted. */
  lastAttemptedRevision?: string;
  /** Flux v2: the release's snapshots, newest first. */
  history?: Array<{ lastDeployed?: string; status?: string; chartVersion?: string }>;
}

export type HelmRelease = KubeObject<HelmReleaseSpec, HelmReleaseStatus>;

export interface GroupwareSpec {
  profile: string;
  poolSelector?: { matchLabels?: Record<string, string> };
  [field: string]: unknown;
}

export interface GroupwareStatus {
  phase?: string;
  url?: string;
  instanceRef?: { namespace?: string; name?: string };
  claimedFromPool?: unknown;
}

export type Groupware = KubeObject<GroupwareSpec, GroupwareStatus>;
