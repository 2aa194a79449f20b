import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength, ValidateBy } from 'class-validator';
import { SEVERITIES, type Severity } from '../severity.js';
import {
  MAX_SEVERITY_MAP_ENTRIES,
  MAX_SEVERITY_MAP_KEY_LENGTH,
  severityMapProblems,
} from './severity-mapping.js';

const SeverityMap = () =>
  ValidateBy({
    name: 'severityMap',
    validator: {
      validate: (value: unknown) => severityMapProblems(value).length === 0,
      defaultMessage: (args) => severityMapProblems(args?.value).join('; '),
    },
  });

export class MintIngestTokenBody {
  @ApiPropertyOptional({
    example: 'alertmanager prod-eu',
    description: 'shown in GET /tokens; default "Alertmanager ingest"',
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @Matches(/\S/, { message: 'name must not be blank' })
  name?: string;

  @ApiPropertyOptional({
    description: 'the account password; needed when the session is older than 15 minutes',
  })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  current_password?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', enum: [...SEVERITIES] },
    maxProperties: MAX_SEVERITY_MAP_ENTRIES,
    example: { error: 'high', page: 'critical' },
    description:
      `severity label values of this token's alerts to severities; keys (1 to ${MAX_SEVERITY_MAP_KEY_LENGTH} characters, ` +
      'no two differing only in case) match case-insensitively, and with at least one entry ' +
      'critical, high, warning and info match case-insensitively too. Alerts whose label still ' +
      'maps to nothing are refused with unknown_severity; their labels are stored as sent',
  })
  @IsOptional()
  @SeverityMap()
  severity_map?: Record<string, string> | null;

  @ApiPropertyOptional({
    enum: SEVERITIES,
    nullable: true,
    description: "the severity of this token's alerts that have no severity label",
  })
  @IsOptional()
  @IsIn(SEVERITIES)
  default_severity?: Severity | null;
}
