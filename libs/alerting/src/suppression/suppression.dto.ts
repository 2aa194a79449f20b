import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  Allow,
  IsISO8601,
  IsString,
  Matches,
  MaxLength,
  ValidateBy,
  ValidateIf,
} from 'class-validator';

/** PostgreSQL text cannot hold NUL; refusing it here keeps it a 422 rather than a 500. */
const NoNul = () =>
  ValidateBy({
    name: 'noNul',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || !value.includes('\u0000'),
      defaultMessage: (args) => `${args?.property} must not contain NUL characters`,
    },
  });

export class CreateSilenceBody {
  @ApiProperty({ format: 'date-time', description: 'when the silence ends; in the future' })
  @IsISO8601({ strict: true })
  ends_at!: string;

  @ApiProperty({ example: 'Known issue, fix rolling out' })
  @IsString()
  @Matches(/\S/, { message: 'comment must not be empty' })
  @NoNul()
  @MaxLength(2000)
  comment!: string;
}

const MATCHERS_DOC = {
  description:
    'label matchers {label, op: eq|re, value}; all must pass; [] or omitted: every alert of the project',
  example: [{ label: 'env', op: 'eq', value: 'staging' }],
};

export class CreateMaintenanceWindowBody {
  @ApiProperty({ example: 'Database upgrade' })
  @IsString()
  @Matches(/\S/, { message: 'name must not be empty' })
  @NoNul()
  @MaxLength(200)
  name!: string;

  @ApiProperty({ format: 'date-time' })
  @IsISO8601({ strict: true })
  starts_at!: string;

  @ApiProperty({ format: 'date-time', description: 'strictly after starts_at' })
  @IsISO8601({ strict: true })
  ends_at!: string;

  @ApiPropertyOptional(MATCHERS_DOC)
  @Allow()
  matchers?: unknown;
}

/** Omitted fields stay as they are; null is refused except for matchers (null clears them). */
export class UpdateMaintenanceWindowBody {
  @ApiPropertyOptional()
  @ValidateIf((_, value) => value !== undefined)
  @IsString()
  @Matches(/\S/, { message: 'name must not be empty' })
  @NoNul()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @ValidateIf((_, value) => value !== undefined)
  @IsISO8601({ strict: true })
  starts_at?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @ValidateIf((_, value) => value !== undefined)
  @IsISO8601({ strict: true })
  ends_at?: string;

  @ApiPropertyOptional(MATCHERS_DOC)
  @Allow()
  matchers?: unknown;
}
