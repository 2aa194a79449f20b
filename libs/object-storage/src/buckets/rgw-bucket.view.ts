import { ApiProperty } from '@nestjs/swagger';
import type { RgwBucketStats } from '../client/rgw-admin-ops.js';

/** A bucket of a user, with its usage. */
export class RgwBucketResponse {
  @ApiProperty()
  name!: string;

  @ApiProperty({ type: 'integer', description: 'stored data in KB' })
  size_kb!: number;

  @ApiProperty({ type: 'integer' })
  num_objects!: number;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  created_at!: string | null;
}

/** RGW's stats of a bucket as our view: the `rgw.main` category holds the objects' data. */
export function bucketOf(stats: RgwBucketStats): RgwBucketResponse {
  const main = stats.usage?.['rgw.main'];
  const created = stats.creation_time ? Date.parse(stats.creation_time) : NaN;
  return {
    name: stats.bucket,
    size_kb: main?.size_kb ?? 0,
    num_objects: main?.num_objects ?? 0,
    created_at: Number.isFinite(created) ? new Date(created).toISOString() : null,
  };
}
