import { ApiProperty } from '@nestjs/swagger';
import type { RgwQuotaInfo, RgwUserInfo } from '../client/rgw-admin-ops.js';
import type { RgwUserRow } from './rgw-users.repository.js';

/** The quota new users get (Limits: 500 GB, enforced). */
export const DEFAULT_QUOTA = { max_size_kb: 524288000, enabled: true } as const;

export class RgwQuotaResponse {
  @ApiProperty({ type: 'integer', minimum: -1, description: 'total storage in KB; -1: unlimited' })
  max_size_kb!: number;

  @ApiProperty({ description: 'whether RGW rejects writes beyond max_size_kb' })
  enabled!: boolean;
}

/** A user as our table knows it (the list): no call to RGW per user. */
export class RgwUserSummaryResponse {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ description: 'the RGW uid: `org<organization uuid without dashes>$<name>`' })
  uid!: string;

  @ApiProperty({ description: 'the S3 access key (the secret is shown once, on create and renew)' })
  access_key!: string;

  @ApiProperty({ format: 'uuid' })
  organization_id!: string;

  @ApiProperty({ format: 'uuid' })
  project_id!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

/** A user with its live quota, usage and lock from RGW (the item). */
export class RgwUserResponse extends RgwUserSummaryResponse {
  @ApiProperty({ type: RgwQuotaResponse })
  quota!: RgwQuotaResponse;

  @ApiProperty({ type: 'integer', description: 'current usage over all of its buckets, in KB' })
  buckets_total_size_kb!: number;

  @ApiProperty({ description: 'suspended by a platform admin: RGW refuses its keys' })
  locked!: boolean;
}

/** The answer of create and renew_key: the only time the secret key is ever shown. */
export class RgwUserWithSecretResponse extends RgwUserResponse {
  @ApiProperty({
    description: 'the S3 secret key; shown this once, stored nowhere by the platform',
  })
  secret_key!: string;
}

export function summaryOf(row: RgwUserRow): RgwUserSummaryResponse {
  return {
    id: row.id,
    name: row.name,
    uid: row.uid,
    access_key: row.access_key,
    organization_id: row.organization_id,
    project_id: row.project_id,
    created_at: row.created_at.toISOString(),
  };
}

/**
 * Our quota from RGW's. `max_size` (bytes) says whether there is a limit: negative means none,
 * and RGW's `max_size_kb`, rounded from it as an unsigned number, then shows 0 or a huge number.
 * For a limit, `max_size_kb` is exact where `max_size` may not be: near 2^63 bytes a JSON number
 * loses the last digits. Releases before `max_size` existed only had `max_size_kb`.
 */
export function quotaOf(quota: RgwQuotaInfo): RgwQuotaResponse {
  const enabled = quota.enabled === true;
  const kb = typeof quota.max_size_kb === 'number' ? quota.max_size_kb : undefined;
  if (typeof quota.max_size === 'number') {
    if (quota.max_size < 0) return { max_size_kb: -1, enabled };
    return {
      max_size_kb: kb !== undefined && kb >= 0 ? kb : Math.ceil(quota.max_size / 1024),
      enabled,
    };
  }
  return { max_size_kb: kb === undefined || kb < 0 ? -1 : kb, enabled };
}

export function userOf(row: RgwUserRow, info: RgwUserInfo, quota: RgwQuotaInfo): RgwUserResponse {
  return {
    ...summaryOf(row),
    quota: quotaOf(quota),
    buckets_total_size_kb: info.stats?.size_kb ?? 0,
    locked: Boolean(info.suspended),
  };
}
