import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { SEVERITIES, type Severity } from '../severity.js';

/** An account that acknowledged. */
export class AccountAcknowledger {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'Ada Lovelace' })
  name!: string;
}

/** An external phone contact that acknowledged, by label: never the number. */
export class PhoneContactAcknowledger {
  @ApiProperty({ example: 'NOC hotline' })
  label!: string;
}

/** The Alert resource of the spec, as the alert and acknowledgement routes answer it. */
export class Alert {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  project_id!: string;

  @ApiProperty({ description: 'identifies the alert across notifications' })
  fingerprint!: string;

  @ApiProperty({ enum: ['firing', 'resolved'] })
  status!: 'firing' | 'resolved';

  @ApiProperty({ enum: SEVERITIES })
  severity!: Severity;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { alertname: 'HighLatency', service: 'db' },
  })
  labels!: Record<string, string>;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { summary: 'p99 latency above 2 s' },
  })
  annotations!: Record<string, string>;

  @ApiProperty({ type: String, format: 'date-time' })
  starts_at!: Date;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  ends_at!: Date | null;

  @ApiProperty({ description: 'where the alert was generated; empty when not sent' })
  generator_url!: string;

  @ApiProperty({ type: String, format: 'date-time' })
  last_received_at!: Date;

  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: Date;

  @ApiProperty({ type: String, format: 'date-time' })
  updated_at!: Date;

  @ApiProperty({ description: 'true while at least one acknowledgement exists' })
  acknowledged!: boolean;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'the earliest acknowledgement',
  })
  acknowledged_at!: Date | null;

  @ApiProperty({
    nullable: true,
    oneOf: [
      { $ref: getSchemaPath(AccountAcknowledger) },
      { $ref: getSchemaPath(PhoneContactAcknowledger) },
    ],
    description:
      'the earliest acknowledger: an account as {id, name}, a phone contact as {label}; null when not acknowledged or when that account was deleted',
  })
  acknowledged_by!: AccountAcknowledger | PhoneContactAcknowledger | null;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'every acknowledgement, across firings and channels',
  })
  acknowledgement_count!: number;
}

/** The schemas Alert reaches only through its `oneOf`. */
export const ACKNOWLEDGER_MODELS = [AccountAcknowledger, PhoneContactAcknowledger];
