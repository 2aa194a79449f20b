import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PagingQuery } from '@platform/core';
import { Type } from 'class-transformer';
import {
  IsObject,
  IsString,
  Matches,
  MaxLength,
  ValidateBy,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { outboundUrlProblem } from '@platform/outbound';

export const MAX_URL_LENGTH = 2048;
export const MAX_NAME_LENGTH = 200;

/**
 * Why `value` is not a usable webhook URL, or null when it is: the form only. Where it points
 * is checked by the outbound client (422 `url_not_allowed`).
 */
export function webhookUrlProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0) return 'url must be a non-empty string';
  if (value.length > MAX_URL_LENGTH) return `url must be at most ${MAX_URL_LENGTH} characters`;
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

export class WebhookFields {
  @ApiProperty({ example: 'Deploy notifications', maxLength: MAX_NAME_LENGTH })
  @IsString()
  @Matches(/\S/, { message: 'name must not be blank' })
  @MaxLength(MAX_NAME_LENGTH)
  name!: string;

  @ApiProperty({
    example: 'https://hooks.example.com/platform',
    description:
      'where app and cluster events are POSTed, signed; http or https without credentials, and it must reach a public address (else 422 url_not_allowed)',
  })
  @IsWebhookUrl()
  url!: string;
}

export class WebhookChangeFields {
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
}

export class CreateWebhookBody {
  @ApiProperty({ type: WebhookFields })
  @IsObject()
  @ValidateNested()
  @Type(() => WebhookFields)
  webhook!: WebhookFields;
}

/** Partial: omitted fields stay as they are; a field sent as null is refused. */
export class UpdateWebhookBody {
  @ApiProperty({ type: WebhookChangeFields })
  @IsObject()
  @ValidateNested()
  @Type(() => WebhookChangeFields)
  webhook!: WebhookChangeFields;
}

export const HISTORY_DEFAULT_LIMIT = 25;
export const HISTORY_MAX_LIMIT = 200;

/** GET /webhooks/{id}/deliveries and receipts: `limit` 1..200 (default 25) and `offset`. */
export class WebhookHistoryQuery extends PagingQuery({
  defaultLimit: HISTORY_DEFAULT_LIMIT,
  maxLimit: HISTORY_MAX_LIMIT,
}) {}
