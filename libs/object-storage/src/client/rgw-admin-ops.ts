import { Injectable } from '@nestjs/common';
import { providerUnavailable } from '@platform/cloud-core';
import { RgwClient } from './rgw-client.js';
import type { S3Credentials } from './sigv4.js';

/** An S3 key of a user, as Admin Ops shows it (secret included: the admin key may see it). */
export interface RgwKey {
  user: string;
  access_key: string;
  secret_key: string;
}

/** RGW's quota dump. `max_size` is in bytes, negative for no limit. */
export interface RgwQuotaInfo {
  enabled: boolean;
  max_size?: number;
  /** Rounded from `max_size` as an unsigned number: meaningless when that is negative. */
  max_size_kb?: number;
  max_objects?: number;
}

export interface RgwStorageStats {
  size?: number;
  size_kb?: number;
  num_objects?: number;
}

export interface RgwUserInfo {
  user_id: string;
  display_name?: string;
  /** 0 or 1. */
  suspended: number;
  keys: RgwKey[];
  stats?: RgwStorageStats;
  /** The user's quota, as `GET /admin/user?quota` answers it. */
  user_quota?: RgwQuotaInfo;
}

/** One bucket's stats (`GET /admin/bucket?...&stats=true`). */
export interface RgwBucketStats {
  bucket: string;
  tenant?: string;
  owner: string;
  creation_time?: string;
  usage?: Record<string, RgwStorageStats>;
}

/** A quota change; what is left out keeps its current value (RGW's own rule). */
export interface QuotaChange {
  maxSizeKb?: number;
  enabled?: boolean;
}

/**
 * The Admin Ops calls of 4-cloud-resources.md (Object storage), typed. Users are addressed by
 * their tenant-qualified uid (`org<hex>$<name>`), buckets by `<tenant>/<name>` where the call
 * takes no uid, so one organization's names never reach another's.
 */
@Injectable()
export class RgwAdminOps {
  constructor(private readonly rgw: RgwClient) {}

  /** `PUT /admin/user?uid=&display-name=&generate-key=true`: the user with its first S3 key. */
  async createUser(uid: string, displayName: string): Promise<{ info: RgwUserInfo; key: RgwKey }> {
    const info = await this.rgw.admin<RgwUserInfo>('PUT', 'user', [
      ['uid', uid],
      ['display-name', displayName],
      ['key-type', 's3'],
      ['generate-key', 'true'],
    ]);
    const key = info?.keys?.find((k) => k.user === uid) ?? info?.keys?.[0];
    if (!key?.access_key || !key.secret_key) {
      throw providerUnavailable('rgw', 'RGW created the user without an S3 key');
    }
    return { info, key };
  }

  /** `PUT /admin/user?quota&uid=&quota-type=user&max-size-kb=&enabled=` */
  async setUserQuota(uid: string, change: QuotaChange): Promise<void> {
    await this.rgw.admin('PUT', 'user', [
      ['quota', null],
      ['uid', uid],
      ['quota-type', 'user'],
      ...(change.maxSizeKb === undefined
        ? []
        : [['max-size-kb', String(change.maxSizeKb)] as const]),
      ...(change.enabled === undefined ? [] : [['enabled', String(change.enabled)] as const]),
    ]);
  }

  /** `GET /admin/user?uid=[&stats=true]` */
  userInfo(uid: string, stats: boolean): Promise<RgwUserInfo> {
    return this.rgw.admin<RgwUserInfo>('GET', 'user', [
      ['uid', uid],
      ...(stats ? [['stats', 'true'] as const] : []),
    ]);
  }

  /** `GET /admin/user?quota&uid=&quota-type=user` */
  userQuota(uid: string): Promise<RgwQuotaInfo> {
    return this.rgw.admin<RgwQuotaInfo>('GET', 'user', [
      ['quota', null],
      ['uid', uid],
      ['quota-type', 'user'],
    ]);
  }

  /** `POST /admin/user?uid=&suspended=1|0`: a suspended user's keys are refused by S3. */
  async setSuspended(uid: string, suspended: boolean): Promise<void> {
    await this.rgw.admin('POST', 'user', [
      ['uid', uid],
      ['suspended', suspended ? '1' : '0'],
    ]);
  }

  /**
   * `DELETE /admin/user?uid=[&purge-data=true]`. Without purging, RGW refuses (409) a user who
   * still owns buckets. A user already gone counts as removed.
   */
  async removeUser(uid: string, purgeData: boolean): Promise<void> {
    await this.rgw.admin(
      'DELETE',
      'user',
      [['uid', uid], ...(purgeData ? [['purge-data', 'true'] as const] : [])],
      { done: ['NoSuchUser'] },
    );
  }

  /**
   * `PUT /admin/user?key&uid=&key-type=s3&generate-key=true`, naming the access key: RGW then
   * generates only the secret, and the new key is found by its id among the user's keys that RGW
   * answers (their order is RGW's, not creation's).
   */
  async createS3Key(uid: string, accessKey: string): Promise<RgwKey> {
    const keys = await this.rgw.admin<RgwKey[]>('PUT', 'user', [
      ['key', null],
      ['uid', uid],
      ['key-type', 's3'],
      ['access-key', accessKey],
      ['generate-key', 'true'],
    ]);
    const key = Array.isArray(keys) ? keys.find((k) => k.access_key === accessKey) : undefined;
    if (!key?.secret_key)
      throw providerUnavailable('rgw', 'RGW answered no secret for the new key');
    return key;
  }

  /**
   * `DELETE /admin/user?key&uid=&access-key=`. RGW answers an unknown key with 403
   * `InvalidAccessKeyId`; callers run this right after a call the admin key passed, so that
   * answer means the key is already gone.
   */
  async removeS3Key(uid: string, accessKey: string): Promise<void> {
    await this.rgw.admin(
      'DELETE',
      'user',
      [
        ['key', null],
        ['uid', uid],
        ['key-type', 's3'],
        ['access-key', accessKey],
      ],
      { done: ['InvalidAccessKeyId', 'NoSuchKey'] },
    );
  }

  /** `GET /admin/bucket?uid=&stats=true`: the user's buckets with their usage. */
  async userBuckets(uid: string): Promise<RgwBucketStats[]> {
    const buckets = await this.rgw.admin<RgwBucketStats[]>('GET', 'bucket', [
      ['uid', uid],
      ['stats', 'true'],
    ]);
    return Array.isArray(buckets) ? buckets : [];
  }

  /** `GET /admin/bucket?uid=&bucket=`: one bucket of the user's tenant (any owner there). */
  bucket(uid: string, name: string): Promise<RgwBucketStats> {
    return this.rgw.admin<RgwBucketStats>('GET', 'bucket', [
      ['uid', uid],
      ['bucket', name],
      ['stats', 'true'],
    ]);
  }

  /** `DELETE /admin/bucket?bucket=<tenant>/<name>&purge-objects=true` */
  async removeBucket(tenant: string, name: string): Promise<void> {
    await this.rgw.admin('DELETE', 'bucket', [
      ['bucket', `${tenant}/${name}`],
      ['purge-objects', 'true'],
    ]);
  }

  /** S3 `PUT /<bucket>` at RGW_S3_URL with the user's own key: the user owns what it creates. */
  createBucket(credentials: S3Credentials, name: string): Promise<void> {
    return this.rgw.s3('PUT', `/${name}`, credentials);
  }
}
