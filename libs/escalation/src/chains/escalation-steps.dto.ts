import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsUUID,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';
import { Transform } from 'class-transformer';
import {
  PAGE_CHANNELS,
  type PageChannel,
  STEP_TARGET_ROLES,
  STEP_TARGET_TYPES,
  type StepTargetRole,
  type StepTargetType,
} from './chain-snapshot.js';
import { sent } from './chains.dto.js';
import { MAX_DELAY_SECONDS, MAX_STEPS_PER_CHAIN } from './step-rules.js';

const TARGET_DOC =
  'roster_on_call: whoever is on call in target_roster_id; roster_members: every member of target_roster_id; member: target_member_id; role: every member of the organization with target_role; org_admins: the organization admins; phone_contacts: the external phone contacts of target_roster_id; roster: deprecated alias of roster_members, stored and answered as roster_members';

/**
 * What requests may send: the step target types, and `roster`, the former name of
 * roster_members (renamed so that `roster` no longer means "every member" here and "whoever is
 * on call" on alert routes).
 */
const ACCEPTED_TARGET_TYPES = [...STEP_TARGET_TYPES, 'roster'] as const;

/** Reads the deprecated `roster` as roster_members before validation. */
const CurrentTargetType = () =>
  Transform(({ value }: { value: unknown }) => (value === 'roster' ? 'roster_members' : value));

/** Target and channel fields, shared by create and update. */
abstract class StepTargetFields {
  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description:
      'required for roster_on_call, roster_members and phone_contacts: an on-call roster of this project; absent or null otherwise',
  })
  @IsOptional()
  @IsUUID('all')
  target_roster_id?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description:
      "required for member: an account holding a membership in the project's organization; absent or null otherwise",
  })
  @IsOptional()
  @IsUUID('all')
  target_member_id?: string | null;

  @ApiPropertyOptional({
    enum: STEP_TARGET_ROLES,
    nullable: true,
    description: 'required for role; absent or null otherwise',
  })
  @IsOptional()
  @IsIn(STEP_TARGET_ROLES)
  target_role?: StepTargetRole | null;
}

export class CreateStepBody extends StepTargetFields {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_STEPS_PER_CHAIN - 1,
    nullable: true,
    description:
      'where to insert the step (0 is first, at most the step count); the steps at and after it move down; omitted or null: after the last step',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  position?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_DELAY_SECONDS,
    default: 0,
    example: 300,
    description: 'seconds after the previous step (after the escalation opens, for the first)',
  })
  @ValidateIf(sent)
  @IsInt()
  @Min(0)
  @Max(MAX_DELAY_SECONDS)
  delay_seconds?: number;

  @ApiProperty({ enum: ACCEPTED_TARGET_TYPES, description: TARGET_DOC })
  @CurrentTargetType()
  @IsIn(STEP_TARGET_TYPES)
  target_type!: StepTargetType;

  @ApiProperty({
    enum: PAGE_CHANNELS,
    isArray: true,
    example: ['in_app', 'email'],
    description:
      'non-empty, each at most once; accounts are called and texted on their verified number; phone_contacts steps: phone and sms only',
  })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayUnique()
  @IsIn(PAGE_CHANNELS, { each: true })
  channels!: PageChannel[];
}

/** Partial: omitted fields stay as they are; changing target_type clears the old target. */
export class UpdateStepBody extends StepTargetFields {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_STEPS_PER_CHAIN - 1,
    description: 'moves the step (at most the step count - 1); the steps in between shift by one',
  })
  @ValidateIf(sent)
  @IsInt()
  @Min(0)
  position?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_DELAY_SECONDS,
    description: 'omitted: unchanged',
  })
  @ValidateIf(sent)
  @IsInt()
  @Min(0)
  @Max(MAX_DELAY_SECONDS)
  delay_seconds?: number;

  @ApiPropertyOptional({
    enum: ACCEPTED_TARGET_TYPES,
    description: `omitted: unchanged; a change clears the old target fields. ${TARGET_DOC}`,
  })
  @CurrentTargetType()
  @ValidateIf(sent)
  @IsIn(STEP_TARGET_TYPES)
  target_type?: StepTargetType;

  @ApiPropertyOptional({
    enum: PAGE_CHANNELS,
    isArray: true,
    description: 'non-empty, each at most once; omitted: unchanged',
  })
  @ValidateIf(sent)
  @IsArray()
  @ArrayNotEmpty()
  @ArrayUnique()
  @IsIn(PAGE_CHANNELS, { each: true })
  channels?: PageChannel[];
}
