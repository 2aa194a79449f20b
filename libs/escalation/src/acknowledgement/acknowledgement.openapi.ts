import { ApiProperty } from '@nestjs/swagger';
import { SEVERITIES } from '@platform/alerting';

export {
  AccountAcknowledger,
  ACKNOWLEDGER_MODELS,
  Alert,
  PhoneContactAcknowledger,
} from '@platform/alerting';

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
