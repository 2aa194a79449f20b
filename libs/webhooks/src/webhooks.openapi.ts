import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { type ReceiptOutcome, RECEIPT_OUTCOMES } from './receive/receipts.repository.js';

/*
 * Response shapes of the webhook routes, for the OpenAPI document and as the return types of
 * the views. The services answer plain objects of these shapes.
 */

export class WebhookResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ format: 'uri' }) url!: string;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: Date;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at!: Date;
}

export class WebhookWithReceiveSecretResponseDto extends WebhookResponseDto {
  @ApiProperty({
    description:
      'the receive secret registries send as `Authorization: <secret>` (or `Bearer <secret>`); shown in this answer only, as only its hash is stored',
  })
  secret!: string;
}

export class WebhookWithSigningSecretResponseDto extends WebhookResponseDto {
  @ApiProperty({
    description:
      'the new Standard Webhooks secret (`whsec_…`) outbound deliveries are signed with; shown in this answer only',
  })
  signing_secret!: string;
}

export class WebhookCreatedResponseDto extends WebhookWithReceiveSecretResponseDto {
  @ApiProperty({
    description:
      'the Standard Webhooks secret (`whsec_…`) outbound deliveries are signed with; shown in this answer and a rotation only',
  })
  signing_secret!: string;
}

export class ReconciledAppDto {
  @ApiProperty({ format: 'uuid' }) app_id!: string;
  @ApiProperty({ format: 'uuid' }) project_id!: string;
  @ApiProperty({ description: 'the app (its HelmRelease) name' }) name!: string;
  @ApiProperty({ description: 'the pushed digest the app now runs', example: 'sha256:…' })
  digest!: string;
}

export class WebhookReceiveResultDto {
  @ApiProperty({
    type: [ReconciledAppDto],
    description: 'container apps whose HelmRelease was set to the pushed digest by this push',
  })
  reconciled!: ReconciledAppDto[];

  @ApiProperty({
    type: [ReconciledAppDto],
    description: 'matching container apps that already had the pushed digest (a replayed push)',
  })
  unchanged!: ReconciledAppDto[];
}

export class WebhookReceiptAppDto extends ReconciledAppDto {
  @ApiProperty({ description: 'false when the app already had the digest' }) changed!: boolean;
}

export class WebhookReceiptResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: String, format: 'date-time' }) received_at!: Date;
  @ApiProperty({ type: String, nullable: true, description: 'the event `type` as sent' })
  event_type!: string | null;
  @ApiProperty({ type: String, nullable: true }) resource_url!: string | null;
  @ApiProperty({ type: String, nullable: true }) digest!: string | null;
  @ApiProperty({
    enum: RECEIPT_OUTCOMES,
    description:
      'reconciled: at least one app was set to the digest; unchanged: every matching app had it already; no_match: no container app runs that image and tag; ignored: not a PUSH_ARTIFACT event; invalid: answered 422; failed: the apps cluster failed (502/503)',
  })
  outcome!: ReceiptOutcome;
  @ApiProperty({ type: [WebhookReceiptAppDto] }) apps!: WebhookReceiptAppDto[];
  @ApiProperty({ type: String, nullable: true, description: 'why it was invalid or failed' })
  error!: string | null;
}

export class WebhookDeliveryAttemptDto {
  @ApiProperty({ type: 'integer' }) attempt!: number;
  @ApiProperty({ type: String, format: 'date-time' }) started_at!: Date;
  @ApiProperty({ type: 'integer', nullable: true }) response_status!: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "an excerpt of a failed attempt's answer, for those who may edit the webhook",
  })
  response_body!: string | null;
  @ApiProperty({ type: String, nullable: true }) error!: string | null;
  @ApiProperty({ type: 'integer' }) duration_ms!: number;
}

export class WebhookDeliveryResponseDto {
  @ApiProperty({ format: 'uuid', description: 'also the `webhook-id` header of every attempt' })
  id!: string;
  @ApiProperty({ format: 'uuid' }) webhook_id!: string;
  @ApiProperty({ example: 'app.deployed' }) event!: string;
  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'] }) status!: string;
  @ApiProperty({ type: 'integer' }) attempt_count!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_attempt_at!: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  next_attempt_at!: Date | null;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: Date;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'the body sent' })
  payload!: Record<string, unknown>;
  @ApiProperty({ type: [WebhookDeliveryAttemptDto] }) attempts!: WebhookDeliveryAttemptDto[];
}

/* The inbound event, for the document only: the receive route validates the body itself. */

export class PushArtifactResourceDto {
  @ApiProperty({ example: 'sha256:3b1f…' }) digest!: string;
  @ApiPropertyOptional({ example: 'v1.4.2' }) tag?: string;
  @ApiProperty({
    example: 'registry.example.com/acme/shop:v1.4.2',
    description: '`registry/namespace/repository:tag`, matched against container apps',
  })
  resource_url!: string;
}

export class PushArtifactRepositoryDto {
  @ApiPropertyOptional() name?: string;
  @ApiPropertyOptional() namespace?: string;
  @ApiPropertyOptional() repo_full_name?: string;
}

export class PushArtifactEventDataDto {
  @ApiProperty({ type: [PushArtifactResourceDto], minItems: 1 })
  resources!: PushArtifactResourceDto[];
  @ApiPropertyOptional({ type: PushArtifactRepositoryDto })
  repository?: PushArtifactRepositoryDto;
}

export class PushArtifactEventDto {
  @ApiProperty({
    example: 'PUSH_ARTIFACT',
    description: 'other types are accepted (202) and change nothing',
  })
  type!: string;
  @ApiPropertyOptional({ type: 'integer', description: 'Unix time in seconds' })
  occur_at?: number;
  @ApiPropertyOptional({ description: 'the pushing identity' }) operator?: string;
  @ApiProperty({ type: PushArtifactEventDataDto }) event_data!: PushArtifactEventDataDto;
}
