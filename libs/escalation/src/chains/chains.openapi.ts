import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { PAGE_CHANNELS, STEP_TARGET_ROLES, STEP_TARGET_TYPES } from './chain-snapshot.js';
import { MAX_REPEATS, MAX_RE_ESCALATION_AFTER, MIN_RE_ESCALATION_AFTER } from './chains.dto.js';
import { MAX_DELAY_SECONDS, MAX_STEPS_PER_CHAIN } from './step-rules.js';

/** One step of a chain: when, whom and how it pages. */
export class EscalationStep {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  chain_id!: string;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: MAX_STEPS_PER_CHAIN - 1,
    description: `0-based and dense; a chain holds at most ${MAX_STEPS_PER_CHAIN} steps`,
  })
  position!: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: MAX_DELAY_SECONDS,
    description:
      'seconds after the previous step was due (after the escalation opened, for the first)',
  })
  delay_seconds!: number;

  @ApiProperty({ enum: STEP_TARGET_TYPES, description: 'whom the step pages' })
  target_type!: string;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'roster_on_call, roster_members and phone_contacts: the roster; null otherwise',
  })
  target_roster_id!: string | null;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'member: the account; null otherwise',
  })
  target_member_id!: string | null;

  @ApiProperty({
    enum: STEP_TARGET_ROLES,
    nullable: true,
    description: 'role: the organization role; null otherwise',
  })
  target_role!: string | null;

  @ApiProperty({
    enum: PAGE_CHANNELS,
    isArray: true,
    description: 'how each recipient is paged, each once, in the order in_app, email, phone, sms',
  })
  channels!: string[];

  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: Date;

  @ApiProperty({ type: String, format: 'date-time' })
  updated_at!: Date;
}

/** An escalation chain with its steps in order. */
export class EscalationChain {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  project_id!: string;

  @ApiProperty({ example: 'Database on-call', description: 'need not be unique' })
  name!: string;

  @ApiProperty({ description: 'empty when none was given' })
  description!: string;

  @ApiProperty({
    type: 'integer',
    minimum: MIN_RE_ESCALATION_AFTER,
    maximum: MAX_RE_ESCALATION_AFTER,
    nullable: true,
    description:
      'seconds after an acknowledgement at which the chain restarts from step 1 if the alert still fires; null: never',
  })
  re_escalation_after!: number | null;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: MAX_REPEATS,
    description: 'how many more passes run after the first before the escalation is exhausted',
  })
  repeats!: number;

  @ApiProperty({
    type: [EscalationStep],
    description: 'in order; running escalations keep the snapshot taken when they opened',
  })
  steps!: EscalationStep[];

  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: Date;

  @ApiProperty({ type: String, format: 'date-time' })
  updated_at!: Date;
}

/** An account a step would page. */
export class ResolvedAccount {
  @ApiProperty({ enum: ['account'] })
  type!: 'account';

  @ApiProperty({ format: 'uuid' })
  account_id!: string;

  @ApiProperty({ type: String, nullable: true, example: 'Ada Lovelace' })
  name!: string | null;
}

/** An external phone contact a step would call or text, by label only. */
export class ResolvedPhoneContact {
  @ApiProperty({ enum: ['phone_contact'] })
  type!: 'phone_contact';

  @ApiProperty({ example: 'NOC hotline', description: 'never the number' })
  label!: string;
}

/** Who one step of a chain would page at this moment. */
export class ResolvedStepTargets {
  @ApiProperty({ format: 'uuid' })
  step_id!: string;

  @ApiProperty({ type: 'integer', minimum: 0 })
  position!: number;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: MAX_DELAY_SECONDS })
  delay_seconds!: number;

  @ApiProperty({ enum: STEP_TARGET_TYPES })
  target_type!: string;

  @ApiProperty({ enum: PAGE_CHANNELS, isArray: true })
  channels!: string[];

  @ApiProperty({
    type: 'array',
    items: {
      oneOf: [
        { $ref: getSchemaPath(ResolvedAccount) },
        { $ref: getSchemaPath(ResolvedPhoneContact) },
      ],
      discriminator: {
        propertyName: 'type',
        mapping: {
          account: getSchemaPath(ResolvedAccount),
          phone_contact: getSchemaPath(ResolvedPhoneContact),
        },
      },
    },
    description:
      'on-call now (override, rotation, absences skipped), the whole roster, the member, the role, the org admins or the contacts; empty when nobody would be paged',
  })
  recipients!: Array<ResolvedAccount | ResolvedPhoneContact>;
}

/** The schemas ResolvedStepTargets reaches only through its `oneOf`. */
export const RESOLVED_RECIPIENT_MODELS = [ResolvedAccount, ResolvedPhoneContact];
