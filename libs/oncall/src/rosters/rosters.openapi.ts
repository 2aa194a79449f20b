import { ApiProperty } from '@nestjs/swagger';
import {
  E164,
  HANDOFF_TIME,
  MAX_DESCRIPTION,
  MAX_LABEL,
  MAX_NAME,
  MAX_SHIFT_HOURS,
  MIN_SHIFT_HOURS,
} from './rosters.dto.js';
import { SHIFT_LENGTHS, type ShiftLength, type ShiftSegment } from './rotation-schedule.js';

/** A member of a roster, in rotation order. */
export class OnCallRosterMember {
  @ApiProperty({ format: 'uuid', description: 'the membership on this roster' })
  id!: string;

  @ApiProperty({ format: 'uuid', description: 'the account on call when its turn comes' })
  account_id!: string;

  @ApiProperty({ example: 'Ada Lovelace', description: "the account's name" })
  name!: string;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: '0-based, dense place in the rotation: member i takes shift k when i = k mod n',
  })
  position!: number;
}

/** An external number a roster's phone_contacts steps call or text. */
export class OnCallRosterPhoneContact {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  roster_id!: string;

  @ApiProperty({
    example: 'NOC hotline',
    maxLength: MAX_LABEL,
    description: 'unique per roster; an acknowledgement by this contact shows as {label}',
  })
  label!: string;

  @ApiProperty({
    example: '+4930123456789',
    pattern: E164.source,
    description: 'E.164; shown only here, never in acknowledged_by or resolved_targets',
  })
  phone_number!: string;

  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: Date;

  @ApiProperty({ type: String, format: 'date-time' })
  updated_at!: Date;
}

/** The roster's rotation: who is on call when no override applies. */
export class OnCallRotation {
  @ApiProperty({ format: 'uuid', description: 'a roster has at most one rotation' })
  roster_id!: string;

  @ApiProperty({ example: 'Europe/Berlin', description: 'IANA time zone of the handoffs' })
  time_zone!: string;

  @ApiProperty({
    format: 'date',
    example: '2030-01-07',
    description: 'local date of the first handoff; before it nobody is on call by rotation',
  })
  start_date!: string;

  @ApiProperty({
    example: '09:00',
    pattern: HANDOFF_TIME.source,
    description:
      'local wall-clock time of each handoff (HH:MM, 24h); a skipped time moves after the gap, a repeated one takes its first occurrence',
  })
  handoff_time!: string;

  @ApiProperty({
    enum: SHIFT_LENGTHS,
    description:
      'daily and weekly shifts hand off at the local time across DST; hours shifts last exactly shift_hours elapsed hours',
  })
  shift_length!: ShiftLength;

  @ApiProperty({
    type: 'integer',
    minimum: MIN_SHIFT_HOURS,
    maximum: MAX_SHIFT_HOURS,
    nullable: true,
    description: 'set when shift_length is hours, else null',
  })
  shift_hours!: number | null;

  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: Date;

  @ApiProperty({ type: String, format: 'date-time' })
  updated_at!: Date;
}

/** An account put on call for [starts_at, ends_at), ahead of the rotation. */
export class OnCallOverride {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  roster_id!: string;

  @ApiProperty({ format: 'uuid', description: 'on call while the override lasts' })
  account_id!: string;

  @ApiProperty({ example: 'Grace Hopper', description: "the account's name" })
  name!: string;

  @ApiProperty({ type: String, format: 'date-time', description: 'inclusive' })
  starts_at!: Date;

  @ApiProperty({ type: String, format: 'date-time', description: 'exclusive' })
  ends_at!: Date;

  @ApiProperty({
    type: String,
    format: 'date-time',
    description: 'where overrides overlap, the latest created wins',
  })
  created_at!: Date;
}

/** A roster with its members, phone contacts and rotation. */
export class OnCallRoster {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  project_id!: string;

  @ApiProperty({
    example: 'Primary on-call',
    maxLength: MAX_NAME,
    description: 'trimmed; need not be unique',
  })
  name!: string;

  @ApiProperty({
    example: 'Weekday database pager',
    maxLength: MAX_DESCRIPTION,
    description: 'empty when none was given',
  })
  description!: string;

  @ApiProperty({ type: [OnCallRosterMember], description: 'in rotation order' })
  members!: OnCallRosterMember[];

  @ApiProperty({ type: [OnCallRosterPhoneContact], description: 'ordered by label' })
  phone_contacts!: OnCallRosterPhoneContact[];

  @ApiProperty({
    type: OnCallRotation,
    nullable: true,
    description: 'null until a rotation is PUT; overrides are listed on their own resource',
  })
  rotation!: OnCallRotation | null;

  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: Date;

  @ApiProperty({ type: String, format: 'date-time' })
  updated_at!: Date;
}

/** A stretch of the computed schedule. */
export class OnCallShift {
  @ApiProperty({ format: 'uuid', description: 'who is on call' })
  account_id!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'Ada Lovelace',
    description: "the account's name",
  })
  name!: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    description: 'clipped to the requested window',
  })
  starts_at!: Date;

  @ApiProperty({
    type: String,
    format: 'date-time',
    description: 'exclusive; clipped to the requested window',
  })
  ends_at!: Date;

  @ApiProperty({
    enum: ['rotation', 'override'],
    description: 'rotation: the rotation deals it; override: an override cuts into the rotation',
  })
  source!: ShiftSegment['source'];
}
