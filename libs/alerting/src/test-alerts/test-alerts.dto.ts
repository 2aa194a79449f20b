import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsUUID, ValidateBy } from 'class-validator';
import { labelProblems, MAX_TEST_ALERT_LABELS, regexPlaceholder } from './test-alert-labels.js';

const LabelMap = () =>
  ValidateBy({
    name: 'labelMap',
    validator: {
      validate: (value: unknown) => labelProblems(value).length === 0,
      defaultMessage: (args) => labelProblems(args?.value).join('; '),
    },
  });

export class CreateTestAlertBody {
  @ApiPropertyOptional({
    format: 'uuid',
    description:
      "a route of this project: its matchers give the labels (eq its value, re the placeholder '" +
      regexPlaceholder('EXPRESSION') +
      "')",
  })
  @IsOptional()
  @IsUUID('all')
  route_id?: string | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: 1024 },
    maxProperties: MAX_TEST_ALERT_LABELS,
    example: { alertname: 'DiskFull', severity: 'warning', instance: 'db-1' },
    description:
      'replace derived labels per key; platform_test is always "true"; severity absent or not one of critical, high, warning, info means critical',
  })
  @IsOptional()
  @LabelMap()
  labels?: Record<string, string> | null;
}
