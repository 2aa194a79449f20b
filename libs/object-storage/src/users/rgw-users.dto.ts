import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  Min,
  ValidateBy,
  ValidateNested,
} from 'class-validator';

/**
 * User names RGW takes as the part of the uid after `<tenant>$`: lowercase letters, digits,
 * dots, hyphens and underscores, at most 64, starting with a letter or digit. `$` (the tenant
 * separator) and `:` (RGW's subuser separator) can never appear, and neither can anything an
 * operator would have to quote for `radosgw-admin`.
 */
export const RGW_USER_NAME = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

/**
 * The largest quota in KB: RGW multiplies it by 1024 into a signed 64-bit byte count, which
 * 2^53 KB (2^63 bytes) overflows into "no limit"; 2^53 - 1 is also the largest integer a JSON
 * number carries exactly, so a larger value could not even be read as sent.
 */
export const MAX_QUOTA_KB = Number.MAX_SAFE_INTEGER;

/** POST /rgw/users */
export class CreateRgwUserBody {
  @ApiPropertyOptional({ format: 'uuid', description: 'the project (or the query parameter)' })
  @IsOptional()
  @IsUUID()
  project_id?: string;

  @ApiProperty({
    pattern: RGW_USER_NAME.source,
    description:
      'unique in the organization; the RGW uid becomes `org<organization uuid without dashes>$<name>`',
  })
  @IsString()
  @Matches(RGW_USER_NAME, {
    message:
      'name must be 1 to 64 lowercase letters, digits, dots, hyphens or underscores, starting with a letter or digit',
  })
  name!: string;
}

/** A quota change: what is left out keeps its value. */
export class RgwQuotaBody {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: -1,
    maximum: MAX_QUOTA_KB,
    description: 'total storage in KB over all buckets of the user; -1 removes the limit',
  })
  @IsOptional()
  @IsInt()
  @Min(-1)
  @Max(MAX_QUOTA_KB)
  max_size_kb?: number;

  @ApiPropertyOptional({ description: 'false stores the quota without enforcing it' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

const changesSomething = (value: unknown) =>
  typeof value === 'object' &&
  value !== null &&
  ((value as RgwQuotaBody).max_size_kb !== undefined ||
    (value as RgwQuotaBody).enabled !== undefined);

/** PATCH /rgw/users/{id}: platform admins only. */
export class UpdateRgwUserBody {
  @ApiPropertyOptional({ type: RgwQuotaBody })
  @IsOptional()
  @ValidateNested()
  @Type(() => RgwQuotaBody)
  @ValidateBy({
    name: 'quotaChange',
    validator: {
      validate: changesSomething,
      defaultMessage: () => 'quota must carry max_size_kb or enabled',
    },
  })
  quota?: RgwQuotaBody;

  @ApiPropertyOptional({ description: 'true suspends the user: RGW refuses its keys' })
  @IsOptional()
  @IsBoolean()
  locked?: boolean;
}

/** DELETE /rgw/users/{id} */
export class DeleteRgwUserQuery {
  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description:
      'true: also delete every bucket and object of the user, irreversibly (platform admins only)',
  })
  @IsOptional()
  @IsIn(['true', 'false'])
  purge_objects?: 'true' | 'false';
}
