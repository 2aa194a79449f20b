import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { QueryBoolean, QueryOffset } from '@platform/core';
import {
  Allow,
  IsBoolean,
  IsIn,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import { SEVERITIES, type Severity } from '../entities.js';

export class CreateAbsenceBody {
  @ApiProperty({ format: 'date-time' }) @IsISO8601({ strict: true }) starts_at!: string;
  @ApiProperty({ format: 'date-time', description: 'strictly after starts_at' })
  @IsISO8601({ strict: true })
  ends_at!: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(500) note?: string;
}

export class CreateBroadcastBody {
  @ApiProperty() @IsString() @IsNotEmpty() @Matches(/\S/) @MaxLength(200) title!: string;
  @ApiProperty() @IsString() @IsNotEmpty() @Matches(/\S/) @MaxLength(5000) body!: string;
  @ApiProperty({ enum: SEVERITIES }) @IsIn(SEVERITIES) severity!: Severity;
  @ApiProperty() @IsBoolean() banner!: boolean;
}

export const NOTIFICATIONS_DEFAULT_LIMIT = 20;
export const NOTIFICATIONS_MAX_LIMIT = 100;

/**
 * GET /notifications. The spec pins `limit` as clamped to 1..100 with no 422, so it is taken
 * as sent and clamped (see `clampLimit`); `unread` and `offset` are validated like every
 * other query parameter and answer 422 naming the parameter.
 */
export class NotificationListQuery {
  @QueryBoolean('true: unread only; false: read only; absent: all')
  unread?: 'true' | 'false';

  @ApiPropertyOptional({
    type: 'integer',
    default: NOTIFICATIONS_DEFAULT_LIMIT,
    description: `clamped to 1..${NOTIFICATIONS_MAX_LIMIT}; a value that is not an integer takes the default (never a 422)`,
  })
  @Allow()
  limit?: unknown;

  @QueryOffset()
  offset: number = 0;
}
