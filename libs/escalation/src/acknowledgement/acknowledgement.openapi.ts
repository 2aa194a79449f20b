import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { SEVERITIES } from '@platform/alerting';

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

/** The Alert resource, as the acknowledgement routes answer it. */
export class Alert {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  project_id!: string;

  @ApiProperty({ description: 'identifies the alert across notifications' })
  fingerprint!: string;

  @ApiProperty({ enum: ['firing', 'resolved'] })
  status!: string;

  @ApiProperty({ enum: SEVERITIES })
  severity!: string;

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

  @ApiProperty({ format: 'date-time' })
  starts_at!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  ends_at!: string | null;

  @ApiProperty({ description: 'where the alert was generated; empty when not sent' })
  generator_url!: string;

  @ApiProperty({ format: 'date-time' })
  last_received_at!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;

  @ApiProperty({ description: 'true while at least one acknowledgement exists' })
  acknowledged!: boolean;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'the earliest acknowledgement',
  })
  acknowledged_at!: string | null;

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

/** What a signed acknowledgement link acknowledges, for a confirmation page. */
export class SignedAckLink {
  @ApiProperty({ format: 'uuid' })
  alert_id!: string;

  @ApiProperty({ format: 'uuid', description: 'the paged account that acknowledges' })
  account_id!: string;

  @ApiProperty({ format: 'uuid', description: 'the escalation whose e-mail page sent the link' })
  escalation_instance_id!: string;

  @ApiProperty({
    example: 'p99 latency above 2 s',
    description: 'the summary annotation, else the alertname label, else the fingerprint',
  })
  alert_summary!: string;

  @ApiProperty({ enum: SEVERITIES })
  alert_severity!: string;
}

/** The answer of a signed link's acknowledgement, the same on every repeat. */
export class SignedAckResult {
  @ApiProperty({ type: Boolean, example: true, description: 'always true' })
  acked!: true;

  @ApiProperty({ format: 'uuid' })
  alert_id!: string;
}
