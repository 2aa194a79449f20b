import { Injectable } from '@nestjs/common';
import {
  CloudAudit,
  CloudErrorCode,
  CloudException,
  providerUnavailable,
} from '@platform/cloud-core';
import { Clock } from '@platform/core';
import type { Principal } from '@platform/identity';
import { RgwAdminOps } from '../client/rgw-admin-ops.js';
import { rgwTenantOf } from '../tenancy.js';
import { RgwUsersService } from '../users/rgw-users.service.js';
import { bucketOf, type RgwBucketResponse } from './rgw-bucket.view.js';

/** The buckets of one RGW user of the project. */
@Injectable()
export class RgwBucketsService {
  constructor(
    private readonly users: RgwUsersService,
    private readonly rgw: RgwAdminOps,
    private readonly audit: CloudAudit,
    private readonly clock: Clock,
  ) {}

  async list(principal: Principal, userId: string): Promise<RgwBucketResponse[]> {
    const user = await this.users.find(principal, userId);
    return (await this.rgw.userBuckets(user.uid)).map(bucketOf);
  }

  /**
   * S3 `PUT /<bucket>` signed with the user's own key, so the user owns the bucket in its
   * tenant, as if it had created it itself. The platform stores no secret: it reads the key
   * from Admin Ops for this one request (the admin key may see users' keys) and forgets it.
   */
  async create(principal: Principal, userId: string, name: string): Promise<RgwBucketResponse> {
    const user = await this.users.find(principal, userId);
    const info = await this.rgw.userInfo(user.uid, false);
    if (info.suspended) {
      throw new CloudException(
        CloudErrorCode.Conflict,
        'The object-storage user is locked: it cannot create buckets',
      );
    }
    const key =
      info.keys?.find((k) => k.access_key === user.access_key) ??
      info.keys?.find((k) => k.user === user.uid && k.secret_key);
    if (!key?.secret_key) {
      throw providerUnavailable(
        'rgw',
        'RGW shows no S3 key of the user (the admin key needs the users=read cap)',
      );
    }
    await this.rgw.createBucket(
      { accessKeyId: key.access_key, secretAccessKey: key.secret_key },
      name,
    );
    await this.audit.record(
      principal,
      'rgw_buckets.create',
      { type: 'rgw_bucket', id: name },
      {
        rgw_user_id: user.id,
        uid: user.uid,
      },
    );
    return { name, size_kb: 0, num_objects: 0, created_at: this.clock.now().toISOString() };
  }

  /**
   * Deletes the bucket with every object in it. Only a bucket this user owns: another user of
   * the same organization (tenant) may own one of that name, and answers 404 here.
   */
  async delete(principal: Principal, userId: string, name: string): Promise<void> {
    const user = await this.users.find(principal, userId);
    const bucket = await this.rgw.bucket(user.uid, name);
    if (bucket.owner !== user.uid) {
      throw new CloudException(CloudErrorCode.NotFound, 'Bucket not found');
    }
    await this.rgw.removeBucket(rgwTenantOf(user.organization_id), name);
    await this.audit.record(
      principal,
      'rgw_buckets.delete',
      { type: 'rgw_bucket', id: name },
      {
        rgw_user_id: user.id,
        uid: user.uid,
      },
    );
  }
}
