import { ApiProperty } from '@nestjs/swagger';
import { BUNDLE_WINDOW_DOC } from './dispatch/bundle-window.js';
import { ENDPOINT_EVENTS, type EndpointEvent } from './endpoints/endpoints.repository.js';
import type { DeliveryEvent, DeliveryStatus } from './endpoints/webhook-deliveries.repository.js';
import { IngestAlertErrorCode } from './ingest/alertmanager-payload.js';
import { MATCHER_OPS, type Matcher } from './matchers/matchers.js';
import {
  IN_APP_TARGET_ROLES,
  IN_APP_TARGET_TYPES,
  type InAppTargetRole,
  type InAppTargetType,
} from './routes/alert-routes.repository.js';
import type { RouteOutcome } from './routes/routing.js';
import { SEVERITIES, type Severity } from './severity.js';
import { AlertEventKind } from './timeline/alert-events.repository.js';

/*
 * The response bodies of the alerting routes besides the Alert itself (the `data` of the
 * success envelope). The view functions return these types; the services never answer
 * instances of them.
 */

export class MatcherDto implements Matcher {
  @ApiProperty() label!: string;
  @ApiProperty({ enum: MATCHER_OPS }) op!: Matcher['op'];
  @ApiProperty() value!: string;
}

export class AuthorDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
}

export class AlertEventResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) alert_id!: string;
  @ApiProperty({ enum: AlertEventKind }) kind!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'per kind' })
  details!: Record<string, unknown>;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: Date;
}

export class IngestAlertErrorDto {
  @ApiProperty({ type: 'integer', description: 'the index of the alert in `alerts`' })
  index!: number;
  @ApiProperty({ required: false }) fingerprint?: string;
  @ApiProperty({ enum: IngestAlertErrorCode }) code!: IngestAlertErrorCode;
  @ApiProperty() message!: string;
}

export class IngestResponseDto {
  @ApiProperty({ type: 'integer', description: 'alerts accepted' }) processed!: number;
  @ApiProperty({ type: [IngestAlertErrorDto], description: 'alerts refused, by index' })
  errors!: IngestAlertErrorDto[];
}

export class IngestTokenResponseDto {
  @ApiProperty({ format: 'uuid' }) token_id!: string;
  @ApiProperty({ description: 'the ingest token (`hq_ing_…`), shown this once' }) token!: string;
  @ApiProperty({ type: [String] }) scopes!: string[];
  @ApiProperty({ format: 'uuid' }) project_id!: string;
  @ApiProperty({ description: 'a receiver for alertmanager.yml, YAML' })
  webhook_config_snippet!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', enum: [...SEVERITIES] },
    description: 'the severity map as stored, keys lower-cased; {} when the token has none',
  })
  severity_map!: Record<string, Severity>;
  @ApiProperty({
    enum: SEVERITIES,
    nullable: true,
    description: 'the severity of alerts without a severity label; null: they are refused',
  })
  default_severity!: Severity | null;
}

export class SilenceResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) alert_id!: string;
  @ApiProperty({ type: String, format: 'date-time' }) starts_at!: Date;
  @ApiProperty({ type: String, format: 'date-time' }) ends_at!: Date;
  @ApiProperty() comment!: string;
  @ApiProperty({ type: AuthorDto, nullable: true }) created_by!: AuthorDto | null;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: Date;
  @ApiProperty({ description: 'whether it silences the alert now' }) active!: boolean;
}

export class MaintenanceWindowResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) project_id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, format: 'date-time' }) starts_at!: Date;
  @ApiProperty({ type: String, format: 'date-time' }) ends_at!: Date;
  @ApiProperty({ type: [MatcherDto] }) matchers!: Matcher[];
  @ApiProperty({ description: 'whether it is in effect now' }) active!: boolean;
  @ApiProperty({ type: AuthorDto, nullable: true }) created_by!: AuthorDto | null;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: Date;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at!: Date;
}

export class AlertRouteResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) project_id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: 'integer' }) priority!: number;
  @ApiProperty({ type: [MatcherDto] }) matchers!: Matcher[];
  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  escalation_chain_id!: string | null;
  @ApiProperty({ enum: IN_APP_TARGET_TYPES }) in_app_target_type!: InAppTargetType;
  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  in_app_target_roster_id!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  in_app_target_member_id!: string | null;
  @ApiProperty({ enum: IN_APP_TARGET_ROLES, nullable: true })
  in_app_target_role!: InAppTargetRole | null;
  @ApiProperty({ enum: SEVERITIES, nullable: true })
  min_severity_for_notification!: Severity | null;
  @ApiProperty({ type: [String], format: 'uuid' }) notification_endpoint_ids!: string[];
  @ApiProperty({ type: 'integer', nullable: true }) cooldown_seconds!: number | null;
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 3600, description: BUNDLE_WINDOW_DOC })
  bundle_window_seconds!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_notified_at!: Date | null;
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: Date;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at!: Date;
}

export class RouteEvaluationDto {
  @ApiProperty({ format: 'uuid' }) route_id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: 'integer' }) priority!: number;
  @ApiProperty() enabled!: boolean;
  @ApiProperty({
    enum: ['matched', 'shadowed', 'disabled', 'matchers_failed', 'below_threshold'],
  })
  outcome!: RouteOutcome;
  @ApiProperty({ type: [MatcherDto] }) failed_matchers!: Matcher[];
}

export class AlertRoutePreviewResponseDto {
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  labels!: Record<string, string>;
  @ApiProperty({ enum: SEVERITIES }) severity!: Severity;
  @ApiProperty({
    type: AlertRouteResponseDto,
    nullable: true,
    description: 'the route that would take the alert',
  })
  route!: AlertRouteResponseDto | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  cooldown_until!: Date | null;
  @ApiProperty({ type: [RouteEvaluationDto], description: 'every route, in evaluation order' })
  evaluations!: RouteEvaluationDto[];
}

export class NotificationEndpointResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) project_id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ format: 'uri' }) url!: string;
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ enum: ENDPOINT_EVENTS, isArray: true }) events!: EndpointEvent[];
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: Date;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at!: Date;
}

export class NotificationEndpointWithSecretResponseDto extends NotificationEndpointResponseDto {
  @ApiProperty({ description: 'the signing secret, shown on creation and rotation only' })
  secret!: string;
}

export class DeliveryAttemptDto {
  @ApiProperty({ type: 'integer' }) attempt!: number;
  @ApiProperty({ type: String, format: 'date-time' }) started_at!: Date;
  @ApiProperty({ type: 'integer', nullable: true }) response_status!: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "an excerpt of the receiver's answer, for those who may edit the endpoint",
  })
  response_body!: string | null;
  @ApiProperty({ type: String, nullable: true }) error!: string | null;
  @ApiProperty({ type: 'integer' }) duration_ms!: number;
}

export class DeliveryResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) endpoint_id!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) alert_id!: string | null;
  @ApiProperty({ enum: [...ENDPOINT_EVENTS, 'endpoint.test'] }) event!: DeliveryEvent;
  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'] }) status!: DeliveryStatus;
  @ApiProperty({ type: 'integer' }) attempt_count!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_attempt_at!: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  next_attempt_at!: Date | null;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: Date;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'the body sent' })
  payload!: Record<string, unknown>;
  @ApiProperty({ type: [DeliveryAttemptDto] }) attempts!: DeliveryAttemptDto[];
}
