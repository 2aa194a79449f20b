import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { BUNDLE_WINDOW_DOC } from '../dispatch/bundle-window.js';
import { SEVERITIES } from '../severity.js';
import { IN_APP_TARGET_ROLES, IN_APP_TARGET_TYPES } from './alert-routes.repository.js';

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;
export const MAX_MATCHERS = 50;
export const MAX_ENDPOINT_IDS = 100;
export const MAX_ROUTE_NAME_LENGTH = 200;

const present = (field: string) => (body: object) =>
  (body as Record<string, unknown>)[field] !== undefined;

const matcherSchema = {
  type: 'object',
  properties: {
    label: { type: 'string', example: 'env' },
    op: { type: 'string', enum: ['eq', 're'] },
    value: { type: 'string', example: 'prod' },
  },
};

/** Fields a route accepts on create and update; `null` clears where the field may be empty. */
abstract class AlertRouteFieldsBody {
  @ApiPropertyOptional({ example: 'Production databases', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string | null;

  @ApiPropertyOptional({
    type: 'array',
    items: matcherSchema,
    description:
      'all must pass; eq compares exactly, re is an RE2 expression anchored at both ends; a missing label is the empty string',
  })
  @IsOptional()
  matchers?: unknown;

  @ApiPropertyOptional({ format: 'uuid', nullable: true })
  @IsOptional()
  @IsUUID('all')
  escalation_chain_id?: string | null;

  @ApiPropertyOptional({ enum: IN_APP_TARGET_TYPES, default: 'org_admins' })
  @ValidateIf(present('in_app_target_type'))
  @IsIn(IN_APP_TARGET_TYPES)
  in_app_target_type?: (typeof IN_APP_TARGET_TYPES)[number];

  @ApiPropertyOptional({ format: 'uuid', nullable: true, description: 'when type is roster' })
  @IsOptional()
  @IsUUID('all')
  in_app_target_roster_id?: string | null;

  @ApiPropertyOptional({
    format: 'uuid',
    nullable: true,
    description: 'when type is member: an account holding a membership in the organization',
  })
  @IsOptional()
  @IsUUID('all')
  in_app_target_member_id?: string | null;

  @ApiPropertyOptional({
    enum: IN_APP_TARGET_ROLES,
    nullable: true,
    description: 'when type is role',
  })
  @IsOptional()
  @IsIn(IN_APP_TARGET_ROLES)
  in_app_target_role?: (typeof IN_APP_TARGET_ROLES)[number] | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    enum: [...SEVERITIES, 'any', ''],
    description: 'null, "" or "any" (any case): any severity',
  })
  @IsOptional()
  @IsString()
  min_severity_for_notification?: string | null;

  @ApiPropertyOptional({
    type: [String],
    description:
      'replaces the attached set; [] detaches all; ids that are not endpoints of this project are dropped',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_ENDPOINT_IDS)
  @IsString({ each: true })
  notification_endpoint_ids?: string[] | null;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: 86400,
    nullable: true,
    description: 'after notifying, further alerts of this route are suppressed for this long',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(86400)
  cooldown_seconds?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 3600,
    default: 0,
    description: BUNDLE_WINDOW_DOC,
  })
  @ValidateIf(present('bundle_window_seconds'))
  @IsInt()
  @Min(0)
  @Max(3600)
  bundle_window_seconds?: number;

  @ApiPropertyOptional({ default: true })
  @ValidateIf(present('enabled'))
  @IsBoolean()
  enabled?: boolean;
}

export class CreateAlertRouteBody extends AlertRouteFieldsBody {
  @ApiProperty({ example: 10, description: 'lower evaluates first' })
  @IsInt()
  @Min(INT_MIN)
  @Max(INT_MAX)
  priority!: number;
}

export class UpdateAlertRouteBody extends AlertRouteFieldsBody {
  @ApiPropertyOptional({ example: 10, description: 'lower evaluates first' })
  @ValidateIf(present('priority'))
  @IsInt()
  @Min(INT_MIN)
  @Max(INT_MAX)
  priority?: number;
}

export class CloneAlertRouteBody {
  @ApiPropertyOptional({ description: 'default: "<name> (copy)"', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ description: "default: after the project's last route" })
  @IsOptional()
  @IsInt()
  @Min(INT_MIN)
  @Max(INT_MAX)
  priority?: number;
}

export class PreviewAlertRouteBody {
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsObject()
  labels?: Record<string, unknown>;

  @ApiPropertyOptional({ enum: SEVERITIES, description: 'default: the severity label' })
  @IsOptional()
  @IsIn(SEVERITIES)
  severity?: (typeof SEVERITIES)[number];
}
