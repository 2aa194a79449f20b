import { ApiProperty, type ApiPropertyOptions, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
} from 'class-validator';
import {
  labelProblems,
  MAX_LABEL_VALUE_LENGTH,
  MAX_TEST_ALERT_LABELS,
} from '../test-alerts/test-alert-labels.js';

export const MIN_HEARTBEAT_INTERVAL_SECONDS = 30;
export const MAX_HEARTBEAT_INTERVAL_SECONDS = 30 * 86_400;
export const MAX_HEARTBEAT_GRACE_SECONDS = 7 * 86_400;
export const MAX_HEARTBEAT_NAME_LENGTH = 200;

const LabelMap = () =>
  ValidateBy({
    name: 'labelMap',
    validator: {
      validate: (value: unknown) => labelProblems(value).length === 0,
      defaultMessage: (args) => labelProblems(args?.value).join('; '),
    },
  });

const NAME_DOC: ApiPropertyOptions = {
  example: 'alertmanager watchdog',
  maxLength: MAX_HEARTBEAT_NAME_LENGTH,
  description: 'the `alertname` label of the alert a missed ping fires',
};
const INTERVAL_DOC: ApiPropertyOptions = {
  type: 'integer',
  minimum: MIN_HEARTBEAT_INTERVAL_SECONDS,
  maximum: MAX_HEARTBEAT_INTERVAL_SECONDS,
  description: 'how often a ping is expected',
};
const GRACE_DOC: ApiPropertyOptions = {
  type: 'integer',
  minimum: 0,
  maximum: MAX_HEARTBEAT_GRACE_SECONDS,
  description: 'how late a ping may be before the alert fires; default 0',
};
const LABELS_DOC: ApiPropertyOptions = {
  type: 'object',
  additionalProperties: { type: 'string', maxLength: MAX_LABEL_VALUE_LENGTH },
  maxProperties: MAX_TEST_ALERT_LABELS,
  example: { severity: 'high', team: 'sre' },
  description:
    "the alert's labels; alertname is always the heartbeat's name, severity critical unless this names one of critical, high, warning, info",
};

export class CreateHeartbeatBody {
  @ApiProperty(NAME_DOC)
  @IsString()
  @MaxLength(MAX_HEARTBEAT_NAME_LENGTH)
  @Matches(/\S/, { message: 'name must not be blank' })
  name!: string;

  @ApiProperty(INTERVAL_DOC)
  @IsInt()
  @Min(MIN_HEARTBEAT_INTERVAL_SECONDS)
  @Max(MAX_HEARTBEAT_INTERVAL_SECONDS)
  interval_seconds!: number;

  @ApiPropertyOptional(GRACE_DOC)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_HEARTBEAT_GRACE_SECONDS)
  grace_seconds?: number;

  @ApiPropertyOptional(LABELS_DOC)
  @IsOptional()
  @LabelMap()
  labels?: Record<string, string> | null;
}

/** PATCH changes only the fields it sends; `labels` replaces the whole set. */
export class UpdateHeartbeatBody {
  @ApiPropertyOptional(NAME_DOC)
  @IsOptional()
  @IsString()
  @MaxLength(MAX_HEARTBEAT_NAME_LENGTH)
  @Matches(/\S/, { message: 'name must not be blank' })
  name?: string;

  @ApiPropertyOptional(INTERVAL_DOC)
  @IsOptional()
  @IsInt()
  @Min(MIN_HEARTBEAT_INTERVAL_SECONDS)
  @Max(MAX_HEARTBEAT_INTERVAL_SECONDS)
  interval_seconds?: number;

  @ApiPropertyOptional(GRACE_DOC)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_HEARTBEAT_GRACE_SECONDS)
  grace_seconds?: number;

  @ApiPropertyOptional(LABELS_DOC)
  @IsOptional()
  @LabelMap()
  labels?: Record<string, string> | null;
}
