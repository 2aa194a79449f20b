import { PERSON_CHANNELS, type PersonChannelName } from '@platform/notifications';
import type { Recipient } from '@platform/oncall';

/** Whom a step pages. */
export const STEP_TARGET_TYPES = [
  'roster_on_call',
  'roster_members',
  'member',
  'role',
  'org_admins',
  'phone_contacts',
] as const;
export type StepTargetType = (typeof STEP_TARGET_TYPES)[number];

/** How a step pages: any channel that reaches a person. */
export const PAGE_CHANNELS = PERSON_CHANNELS;
export type PageChannel = PersonChannelName;

export const STEP_TARGET_ROLES = ['Admin', 'Member'] as const;
export type StepTargetRole = (typeof STEP_TARGET_ROLES)[number];

/** A step as an escalation instance keeps it (the columns of `escalation_step`). */
export interface StepSnapshot {
  id: string;
  position: number;
  delay_seconds: number;
  target_type: StepTargetType;
  /** roster_on_call, roster_members and phone_contacts */
  target_roster_id: string | null;
  /** member */
  target_member_id: string | null;
  /** role */
  target_role: StepTargetRole | null;
  channels: PageChannel[];
}

/** The chain as it was when an instance opened: later edits do not reach a running escalation. */
export interface ChainSnapshot {
  id: string;
  name: string;
  /** seconds; null: an acknowledged escalation never restarts */
  re_escalation_after: number | null;
  /** how many more passes after the first */
  repeats: number;
  steps: StepSnapshot[];
}

/** One recipient of a page. Contacts are reached by phone and SMS only. */
export type PageRecipient = Recipient;
