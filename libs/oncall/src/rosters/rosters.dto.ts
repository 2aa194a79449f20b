import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  Min,
  ValidateBy,
  ValidateIf,
  type ValidationArguments,
} from 'class-validator';
import { DateTime, IANAZone } from 'luxon';
import { SHIFT_LENGTHS } from './rotation-schedule.js';

export const MAX_NAME = 200;
export const MAX_DESCRIPTION = 2000;
export const MAX_LABEL = 100;
export const MIN_SHIFT_HOURS = 1;
export const MAX_SHIFT_HOURS = 744;
export const E164 = /^\+[1-9]\d{6,14}$/;

/** A date-time with an explicit offset, so it names one instant wherever the server runs. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;
/** The instant of a date-time the DTOs accepted. */
export function parseInstant(value: string): Date {
  return DateTime.fromISO(value, { setZone: true }).toJSDate();
}

const DATE = /^(19[7-9]\d|[2-9]\d{3})-\d{2}-\d{2}$/;
/** HH:MM, 24h: the local wall-clock time of a handoff. */
export const HANDOFF_TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

const present = (_: object, value: unknown) => value !== undefined;

/** PostgreSQL text cannot hold NUL; refusing it here keeps it a 422 rather than a 500. */
const NoNul = () =>
  ValidateBy({
    name: 'noNul',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || !value.includes('\u0000'),
      defaultMessage: (args) => `${args?.property} must not contain NUL characters`,
    },
  });

const IsDateTime = () =>
  ValidateBy({
    name: 'isDateTime',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'string' &&
        DATE_TIME.test(value) &&
        DateTime.fromISO(value, { setZone: true }).isValid,
      defaultMessage: (args) =>
        `${args?.property} must be an ISO 8601 date-time with an offset, e.g. 2030-01-31T09:00:00Z`,
    },
  });

const IsTimeZone = () =>
  ValidateBy({
    name: 'isTimeZone',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && IANAZone.isValidZone(value),
      defaultMessage: (args) => `${args?.property} must be an IANA time zone, e.g. Europe/Berlin`,
    },
  });

/** Required (1..744) when shift_length is hours; absent or null otherwise. */
const ShiftHoursRule = () =>
  ValidateBy({
    name: 'shiftHours',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) => {
        const hours = (args?.object as { shift_length?: unknown }).shift_length === 'hours';
        if (!hours) return value === undefined || value === null;
        return (
          Number.isInteger(value) &&
          (value as number) >= MIN_SHIFT_HOURS &&
          (value as number) <= MAX_SHIFT_HOURS
        );
      },
      defaultMessage: (args?: ValidationArguments) =>
        (args?.object as { shift_length?: unknown }).shift_length === 'hours'
          ? `shift_hours must be an integer from ${MIN_SHIFT_HOURS} to ${MAX_SHIFT_HOURS} when shift_length is hours`
          : 'shift_hours is only allowed when shift_length is hours',
    },
  });

export class CreateRosterBody {
  @ApiProperty({
    example: 'Primary on-call',
    minLength: 1,
    maxLength: MAX_NAME,
    description: `trimmed, not blank, at most ${MAX_NAME} characters; need not be unique`,
  })
  @IsString()
  @Matches(/\S/, { message: 'name must not be empty' })
  @NoNul()
  @MaxLength(MAX_NAME)
  name!: string;

  @ApiPropertyOptional({
    type: String,
    maxLength: MAX_DESCRIPTION,
    nullable: true,
    default: '',
    example: 'Weekday database pager',
    description: 'trimmed; omitted or null stores an empty description',
  })
  @IsOptional()
  @IsString()
  @NoNul()
  @MaxLength(MAX_DESCRIPTION)
  description?: string | null;
}

/** Omitted fields stay as they are; a null description clears it. */
export class UpdateRosterBody {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: MAX_NAME,
    description: 'trimmed, not blank; omitted: unchanged',
  })
  @ValidateIf(present)
  @IsString()
  @Matches(/\S/, { message: 'name must not be empty' })
  @NoNul()
  @MaxLength(MAX_NAME)
  name?: string;

  @ApiPropertyOptional({
    type: String,
    maxLength: MAX_DESCRIPTION,
    nullable: true,
    description: 'trimmed; omitted: unchanged; null clears it',
  })
  @IsOptional()
  @IsString()
  @NoNul()
  @MaxLength(MAX_DESCRIPTION)
  description?: string | null;
}

export class ShiftsQuery {
  @ApiProperty({
    format: 'date-time',
    example: '2030-03-29T00:00:00Z',
    description: 'start of the window: ISO 8601 with an offset',
  })
  @IsDateTime()
  from!: string;

  @ApiProperty({
    format: 'date-time',
    example: '2030-04-05T00:00:00Z',
    description: 'end of the window (exclusive): after from, at most 90 days later',
  })
  @IsDateTime()
  to!: string;
}

export class AddMemberBody {
  @ApiProperty({
    format: 'uuid',
    description:
      "an account holding a membership in the project's organization, not yet on this roster",
  })
  @IsUUID('all')
  account_id!: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    nullable: true,
    description:
      '0-based place in the rotation, 0..member count; later members move down; omitted or null: appended',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  position?: number | null;
}

export class MoveMemberBody {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'the new 0-based place, 0..member count - 1; members in between shift by one',
  })
  @IsInt()
  @Min(0)
  position!: number;
}

export class CreatePhoneContactBody {
  @ApiProperty({
    example: 'NOC hotline',
    minLength: 1,
    maxLength: MAX_LABEL,
    description: `not blank, at most ${MAX_LABEL} characters, unique per roster; shown as the acknowledger`,
  })
  @IsString()
  @Matches(/\S/, { message: 'label must not be empty' })
  @NoNul()
  @MaxLength(MAX_LABEL)
  label!: string;

  @ApiProperty({
    example: '+4930123456789',
    pattern: E164.source,
    description: 'E.164: +, country code and number, 8 to 16 characters',
  })
  @IsString()
  @Matches(E164, { message: 'phone_number must be an E.164 number such as +4930123456789' })
  phone_number!: string;
}

export class UpdatePhoneContactBody {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: MAX_LABEL,
    description: 'not blank, unique per roster; omitted: unchanged',
  })
  @ValidateIf(present)
  @IsString()
  @Matches(/\S/, { message: 'label must not be empty' })
  @NoNul()
  @MaxLength(MAX_LABEL)
  label?: string;

  @ApiPropertyOptional({
    example: '+4930123456789',
    pattern: E164.source,
    description: 'E.164; omitted: unchanged',
  })
  @ValidateIf(present)
  @IsString()
  @Matches(E164, { message: 'phone_number must be an E.164 number such as +4930123456789' })
  phone_number?: string;
}

export class PutRotationBody {
  @ApiProperty({
    example: 'Europe/Berlin',
    description: 'IANA time zone of the handoffs; the case is corrected, aliases are kept',
  })
  @IsTimeZone()
  time_zone!: string;

  @ApiProperty({
    format: 'date',
    example: '2030-01-07',
    description: 'local date (YYYY-MM-DD, 1970 or later) of the first handoff',
  })
  @IsString()
  @Matches(DATE, { message: 'start_date must be a date YYYY-MM-DD, 1970 or later' })
  @IsISO8601({ strict: true }, { message: 'start_date must be a valid calendar date' })
  start_date!: string;

  @ApiProperty({
    example: '09:00',
    pattern: HANDOFF_TIME.source,
    description: 'local wall-clock time of each handoff, HH:MM 24h',
  })
  @IsString()
  @Matches(HANDOFF_TIME, { message: 'handoff_time must be a time HH:MM (24h)' })
  handoff_time!: string;

  @ApiProperty({
    enum: SHIFT_LENGTHS,
    description:
      'daily and weekly keep the local handoff time across DST; hours: shifts of shift_hours elapsed hours',
  })
  @IsIn(SHIFT_LENGTHS)
  shift_length!: (typeof SHIFT_LENGTHS)[number];

  @ApiPropertyOptional({
    type: 'integer',
    minimum: MIN_SHIFT_HOURS,
    maximum: MAX_SHIFT_HOURS,
    nullable: true,
    example: 12,
    description: 'required when shift_length is hours; absent or null otherwise',
  })
  @ShiftHoursRule()
  shift_hours?: number | null;
}

export class CreateOverrideBody {
  @ApiProperty({
    format: 'uuid',
    description:
      "the account on call meanwhile, holding a membership in the project's organization",
  })
  @IsUUID('all')
  account_id!: string;

  @ApiProperty({
    format: 'date-time',
    example: '2030-01-10T18:00:00+01:00',
    description: 'ISO 8601 with an offset; past or future',
  })
  @IsDateTime()
  starts_at!: string;

  @ApiProperty({
    format: 'date-time',
    example: '2030-01-11T09:00:00+01:00',
    description: 'exclusive, strictly after starts_at',
  })
  @IsDateTime()
  ends_at!: string;
}

export class ListOverridesQuery {
  @ApiPropertyOptional({
    format: 'date-time',
    description: 'only overrides ending after this; omitted: no lower bound',
  })
  @ValidateIf(present)
  @IsDateTime()
  from?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'only overrides starting before this, after from; omitted: no upper bound',
  })
  @ValidateIf(present)
  @IsDateTime()
  to?: string;
}
