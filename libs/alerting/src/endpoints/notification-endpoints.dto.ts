import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PagingQuery } from '@platform/core';
import {
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateBy,
  ValidateIf,
} from 'class-validator';
import { outboundUrlProblem } from '@platform/outbound';
import { ENDPOINT_EVENTS, type EndpointEvent } from './endpoints.repository.js';

export const MAX_URL_LENGTH = 2048;
export const MAX_NAME_LENGTH = 200;

/**
 * Why `value` is not a usable endpoint URL, or null when it is: the form only. Where it
 * points is checked by the outbound client (422 `url_not_allowed`).
 */
export function webhookUrlProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0) return 'url must be a non-empty string';
  if (value.length > MAX_URL_LENGTH) {
    return `url must be at most ${MAX_URL_LENGTH} characters`;
  }
  if (value.trim() !== value) return 'url must not start or end with whitespace';
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return 'url must be an absolute http or https URL';
  }
  return outboundUrlProblem(parsed);
}

const IsWebhookUrl = (): PropertyDecorator =>
  ValidateBy({
    name: 'isWebhookUrl',
    validator: {
      validate: (value: unknown) => webhookUrlProblem(value) === null,
      defaultMessage: (args) => webhookUrlProblem(args?.value) ?? 'url is invalid',
    },
  });

/** Present in the body, null included (PATCH validates what was sent, skips what was not). */
const sent = (_object: object, value: unknown) => value !== undefined;

export class CreateEndpointBody {
  @ApiProperty({ example: 'Ops chat bridge', maxLength: MAX_NAME_LENGTH })
  @IsString()
  @Matches(/\S/, { message: 'name must not be blank' })
  @MaxLength(MAX_NAME_LENGTH)
  name!: string;

  @ApiProperty({
    example: 'https://hooks.example.com/alerts',
    description:
      'http or https, without credentials (every POST carries a signature instead); must reach a public address, else 422 url_not_allowed',
  })
  @IsWebhookUrl()
  url!: string;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({
    enum: ENDPOINT_EVENTS,
    isArray: true,
    default: ENDPOINT_EVENTS,
    description: 'the alert events to deliver; at least one',
  })
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty()
  @IsIn(ENDPOINT_EVENTS, { each: true })
  events?: EndpointEvent[];
}

/** Partial: omitted fields stay as they are; a field sent as null is refused. */
export class UpdateEndpointBody {
  @ApiPropertyOptional({ maxLength: MAX_NAME_LENGTH })
  @ValidateIf(sent)
  @IsString()
  @Matches(/\S/, { message: 'name must not be blank' })
  @MaxLength(MAX_NAME_LENGTH)
  name?: string;

  @ApiPropertyOptional()
  @ValidateIf(sent)
  @IsWebhookUrl()
  url?: string;

  @ApiPropertyOptional()
  @ValidateIf(sent)
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({ enum: ENDPOINT_EVENTS, isArray: true })
  @ValidateIf(sent)
  @IsArray()
  @ArrayNotEmpty()
  @IsIn(ENDPOINT_EVENTS, { each: true })
  events?: EndpointEvent[];
}

export const DELIVERIES_DEFAULT_LIMIT = 25;
export const DELIVERIES_MAX_LIMIT = 200;

/** GET .../{id}/deliveries: `limit` 1..200 (default 25) and `offset`; anything else answers 422. */
export class DeliveriesQuery extends PagingQuery({
  defaultLimit: DELIVERIES_DEFAULT_LIMIT,
  maxLimit: DELIVERIES_MAX_LIMIT,
}) {}

/** Events as a set in catalog order, however they were sent. */
export function normalizeEvents(events: readonly EndpointEvent[]): EndpointEvent[] {
  return ENDPOINT_EVENTS.filter((event) => events.includes(event));
}
