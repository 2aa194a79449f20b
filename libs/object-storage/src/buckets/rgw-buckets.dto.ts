import { isIP } from 'node:net';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, IsUUID, ValidateBy, type ValidationOptions } from 'class-validator';

const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * S3's bucket naming rules, which RGW enforces for DNS-compatible names: 3 to 63 lowercase
 * letters, digits, dots and hyphens, starting and ending with a letter or digit, no two
 * adjacent dots (nor a dot beside a hyphen, which makes an invalid DNS label), and not an IPv4
 * address.
 */
export function isBucketName(value: unknown): boolean {
  return (
    typeof value === 'string' &&
    BUCKET_NAME.test(value) &&
    !/\.\.|\.-|-\./.test(value) &&
    isIP(value) === 0
  );
}

const BUCKET_NAME_RULE =
  'must be 3 to 63 lowercase letters, digits, dots or hyphens, start and end with a letter or digit, and not be an IP address';

const IsBucketName = (options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'bucketName',
      validator: {
        validate: isBucketName,
        defaultMessage: (args) => `${args?.property ?? 'name'} ${BUCKET_NAME_RULE}`,
      },
    },
    options,
  );

/** POST /rgw/users/{id}/buckets */
export class CreateBucketBody {
  @ApiPropertyOptional({ format: 'uuid', description: 'the project (or the query parameter)' })
  @IsOptional()
  @IsUUID()
  project_id?: string;

  @ApiProperty({
    minLength: 3,
    maxLength: 63,
    description: `unique in the organization; ${BUCKET_NAME_RULE}`,
  })
  @IsString()
  @IsBucketName()
  name!: string;
}

/** DELETE /rgw/users/{id}/buckets/{name} */
export class BucketParams {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  id!: string;

  @ApiProperty({ description: 'the bucket name' })
  @IsString()
  @IsBucketName()
  name!: string;
}
