import type { KubeObject, Stored, Written } from '@platform/kube';
import type {
  groupwareApps,
  groupwareInstanceSpec,
  groupwareInstanceStatus,
} from './groupware-instance.js';
import type {
  groupwarePoolSpec,
  groupwarePoolStatus,
  groupwareProfileSpec,
  groupwareProfileStatus,
  groupwareSpec,
  groupwareStatus,
  signalingServerSpec,
  talkServerStatus,
} from './other-kinds.js';

/*
 * The TypeScript types of the group, inferred from the schemas the CRDs are generated from.
 * `…Spec` is what the API server returns (schema defaults filled in); `…SpecInput` is what a
 * client may write.
 */

export type GroupwareInstanceSpec = Stored<typeof groupwareInstanceSpec>;
export type GroupwareInstanceSpecInput = Written<typeof groupwareInstanceSpec>;
export type GroupwareInstanceStatus = Stored<typeof groupwareInstanceStatus>;
export type GroupwareInstance = KubeObject<GroupwareInstanceSpec, GroupwareInstanceStatus>;
export type GroupwareApps = Stored<typeof groupwareApps>;
export type GroupwareCondition = NonNullable<GroupwareInstanceStatus['conditions']>[number];

export type GroupwareSpec = Stored<typeof groupwareSpec>;
export type GroupwareSpecInput = Written<typeof groupwareSpec>;
export type GroupwareStatus = Stored<typeof groupwareStatus>;
export type Groupware = KubeObject<GroupwareSpec, GroupwareStatus>;

export type GroupwarePoolSpec = Stored<typeof groupwarePoolSpec>;
export type GroupwarePoolSpecInput = Written<typeof groupwarePoolSpec>;
export type GroupwarePoolStatus = Stored<typeof groupwarePoolStatus>;
export type GroupwarePool = KubeObject<GroupwarePoolSpec, GroupwarePoolStatus>;

export type GroupwareProfileSpec = Stored<typeof groupwareProfileSpec>;
export type GroupwareProfileStatus = Stored<typeof groupwareProfileStatus>;
export type GroupwareProfile = KubeObject<GroupwareProfileSpec, GroupwareProfileStatus>;

/** SignalingServer and RecordingServer share their fields. */
export type TalkServerSpec = Stored<typeof signalingServerSpec>;
export type TalkServerSpecInput = Written<typeof signalingServerSpec>;
export type TalkServerStatus = Stored<typeof talkServerStatus>;
export type SignalingServer = KubeObject<TalkServerSpec, TalkServerStatus>;
export type RecordingServer = KubeObject<TalkServerSpec, TalkServerStatus>;
