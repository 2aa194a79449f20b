import {
  PAGE_CHANNELS,
  type PageChannel,
  type StepTargetRole,
  type StepTargetType,
} from './chain-snapshot.js';
import type { StepFields } from './chains.repository.js';

export const MAX_STEPS_PER_CHAIN = 20;
export const MAX_DELAY_SECONDS = 86400;

export interface FieldProblem {
  field: string;
  messages: string[];
}

type TargetField = 'target_roster_id' | 'target_member_id' | 'target_role';
const TARGET_FIELDS: readonly TargetField[] = [
  'target_roster_id',
  'target_member_id',
  'target_role',
];

/** The target field each type needs; the others must stay empty. */
const FIELD_OF_TYPE: Record<StepTargetType, TargetField | null> = {
  roster_on_call: 'target_roster_id',
  roster_members: 'target_roster_id',
  member: 'target_member_id',
  role: 'target_role',
  org_admins: null,
  phone_contacts: 'target_roster_id',
};

/** External phone contacts have no account: nothing reaches them in-app or by e-mail. */
const CONTACT_CHANNELS: readonly PageChannel[] = ['phone', 'sms'];

/** What a create or update request sends; null clears a target field. */
export interface StepInput {
  delay_seconds?: number;
  target_type?: StepTargetType;
  target_roster_id?: string | null;
  target_member_id?: string | null;
  target_role?: StepTargetRole | null;
  channels?: PageChannel[];
}

export interface MergedStep {
  fields: StepFields;
  problems: FieldProblem[];
  /** References to look up (only when the request touched the target). */
  rosterToCheck: string | null;
  memberToCheck: string | null;
}

/**
 * The step after applying `input` to `current` (null on create), with what is wrong with it.
 * A target field the resulting type does not use must be absent or null in the request (a
 * roster id sent with target_type member is a mistake worth reporting), while stored fields
 * of a previous type are cleared when the type changes. The target and channels are checked
 * when the request sends any of them (and on create), so a step whose roster or member was
 * deleted since can still have its delay edited.
 */
export function mergeStep(current: StepFields | null, input: StepInput): MergedStep {
  const problems: FieldProblem[] = [];
  const sent = (key: keyof StepInput) => input[key] !== undefined;
  const type = input.target_type ?? current!.target_type;
  const needed = FIELD_OF_TYPE[type];

  const target: Record<TargetField, string | null> = {
    target_roster_id: null,
    target_member_id: null,
    target_role: null,
  };
  for (const field of TARGET_FIELDS) {
    const given = input[field];
    if (field !== needed) {
      if (given !== undefined && given !== null)
        problems.push({
          field,
          messages: [`${field} must be absent or null when target_type is ${type}`],
        });
      continue;
    }
    target[field] = given !== undefined ? given : (current?.[field] ?? null);
  }

  const touched =
    current === null || (['target_type', ...TARGET_FIELDS, 'channels'] as const).some(sent);
  if (touched && needed !== null && target[needed] === null)
    problems.push({
      field: needed,
      messages: [`${needed} is required when target_type is ${type}`],
    });

  const channels = normalizeChannels(input.channels ?? current!.channels);
  if (touched && type === 'phone_contacts' && channels.some((c) => !CONTACT_CHANNELS.includes(c)))
    problems.push({
      field: 'channels',
      messages: ['channels of a phone_contacts step must be phone or sms'],
    });

  const fields: StepFields = {
    delay_seconds: input.delay_seconds ?? current?.delay_seconds ?? 0,
    target_type: type,
    target_roster_id: target.target_roster_id,
    target_member_id: target.target_member_id,
    target_role: target.target_role as StepTargetRole | null,
    channels,
  };
  return {
    fields,
    problems,
    rosterToCheck: touched ? fields.target_roster_id : null,
    memberToCheck: touched ? fields.target_member_id : null,
  };
}

/** Channels as a set in catalog order, however they were sent. */
export function normalizeChannels(channels: readonly PageChannel[]): PageChannel[] {
  return PAGE_CHANNELS.filter((channel) => channels.includes(channel));
}

/**
 * The chain's step ids after putting `id` at `position` (inserting it when it is not in `ids`):
 * the others keep their relative order, so positions stay dense 0..n-1.
 */
export function placeStep(ids: readonly string[], id: string, position: number): string[] {
  const others = ids.filter((other) => other !== id);
  const at = Math.max(0, Math.min(position, others.length));
  return [...others.slice(0, at), id, ...others.slice(at)];
}

/** Why `position` cannot place a step among `count` slots (count + 1 on insert), or null. */
export function positionProblem(position: number, slots: number): FieldProblem | null {
  if (position >= 0 && position < slots) return null;
  return {
    field: 'position',
    messages: [`position must be between 0 and ${slots - 1}`],
  };
}
