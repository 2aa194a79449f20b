import { randomInt } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { CloudAudit, CloudErrorCode, CloudException } from '@platform/cloud-core';
import { Clock } from '@platform/core';
import { IdentityErrorCode, IdentityException, type Principal } from '@platform/identity';
import { DataSource } from 'typeorm';
import { RgwAdminOps } from '../client/rgw-admin-ops.js';
import { RgwClient } from '../client/rgw-client.js';
import { rgwUidOf } from '../tenancy.js';
import type { CreateRgwUserBody, UpdateRgwUserBody } from './rgw-users.dto.js';
import { type RgwUserRow, RgwUsersRepository } from './rgw-users.repository.js';
import {
  DEFAULT_QUOTA,
  type RgwUserResponse,
  type RgwUserSummaryResponse,
  type RgwUserWithSecretResponse,
  summaryOf,
  userOf,
} from './rgw-user.view.js';

const ACCESS_KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A fresh access key id in RGW's own format (20 uppercase letters and digits). */
const newAccessKeyId = () =>
  Array.from({ length: 20 }, () => ACCESS_KEY_ALPHABET[randomInt(36)]).join('');

const projectOf = (principal: Principal) => {
  if (!principal.projectId || !principal.organizationId)
    throw new Error('an /rgw route names its project');
  return { projectId: principal.projectId, organizationId: principal.organizationId };
};

const notFound = () => new CloudException(CloudErrorCode.NotFound, 'Object-storage user not found');

/**
 * RGW users of a project (4-cloud-resources.md, Object storage): our table says which users a
 * project has, RGW holds everything else, secrets included. A change that fails halfway is
 * undone upstream (best effort, logged when that fails too), so RGW and the table stay in step.
 */
@Injectable()
export class RgwUsersService {
  private readonly logger = new Logger('object-storage');

  constructor(
    private readonly repository: RgwUsersRepository,
    private readonly rgw: RgwAdminOps,
    private readonly client: RgwClient,
    private readonly audit: CloudAudit,
    private readonly clock: Clock,
    private readonly dataSource: DataSource,
  ) {}

  /** From our table alone: no RGW call per user. */
  async list(principal: Principal): Promise<RgwUserSummaryResponse[]> {
    this.client.requireConfigured(); // 503 like every /rgw route, though no call is made
    return (await this.repository.listForProject(projectOf(principal).projectId)).map(summaryOf);
  }

  async show(principal: Principal, id: string): Promise<RgwUserResponse> {
    return this.live(await this.find(principal, id));
  }

  /** The user of the caller's project with this id; 404 from anywhere else. */
  async find(principal: Principal, id: string): Promise<RgwUserRow> {
    this.client.requireConfigured();
    const row = await this.repository.findInProject(projectOf(principal).projectId, id);
    if (!row) throw notFound();
    return row;
  }

  /** Creates the user in its organization's tenant with the default quota; shows the secret once. */
  async create(principal: Principal, body: CreateRgwUserBody): Promise<RgwUserWithSecretResponse> {
    this.client.requireConfigured();
    const { organizationId, projectId } = projectOf(principal);
    if (await this.repository.nameTaken(organizationId, body.name)) {
      throw new CloudException(
        CloudErrorCode.Conflict,
        'An object-storage user of this name exists in the organization',
      );
    }
    const uid = rgwUidOf(organizationId, body.name);
    const { key } = await this.rgw.createUser(uid, body.name);
    let row: RgwUserRow;
    try {
      await this.rgw.setUserQuota(uid, {
        maxSizeKb: DEFAULT_QUOTA.max_size_kb,
        enabled: DEFAULT_QUOTA.enabled,
      });
      row = await this.repository.insert({
        organization_id: organizationId,
        project_id: projectId,
        name: body.name,
        uid,
        access_key: key.access_key,
        created_at: this.clock.now(),
      });
    } catch (error) {
      // A user without its default quota or without its row must not stay behind.
      await this.rgw.removeUser(uid, true).catch((undo: unknown) => this.leftBehind(uid, undo));
      throw error;
    }
    await this.audit.record(
      principal,
      'rgw_users.create',
      { type: 'rgw_user', id: row.id },
      {
        name: row.name,
        uid,
      },
    );
    return {
      ...summaryOf(row),
      quota: { ...DEFAULT_QUOTA },
      buckets_total_size_kb: 0,
      locked: false,
      secret_key: key.secret_key,
    };
  }

  /** Quota and lock: the route is platform-admin only. */
  async update(
    principal: Principal,
    id: string,
    body: UpdateRgwUserBody,
  ): Promise<RgwUserResponse> {
    const row = await this.find(principal, id);
    if (body.quota) {
      await this.rgw.setUserQuota(row.uid, {
        maxSizeKb: body.quota.max_size_kb,
        enabled: body.quota.enabled,
      });
    }
    if (body.locked !== undefined) await this.rgw.setSuspended(row.uid, body.locked);
    if (body.quota || body.locked !== undefined) {
      await this.audit.record(
        principal,
        'rgw_users.update',
        { type: 'rgw_user', id: row.id },
        {
          ...(body.quota ? { quota: { ...body.quota } } : {}),
          ...(body.locked !== undefined ? { locked: body.locked } : {}),
        },
      );
    }
    return this.live(row);
  }

  /**
   * Removes the user. Purging (its buckets and objects with it) is irreversible and platform
   * admins' only; without it RGW refuses a user who still owns buckets (409).
   */
  async delete(principal: Principal, id: string, purge: boolean): Promise<void> {
    if (purge && !principal.account.isPlatformAdmin) {
      throw new IdentityException(
        IdentityErrorCode.Forbidden,
        'Only platform admins may purge a user with its objects (purge_objects=true)',
      );
    }
    const row = await this.find(principal, id);
    try {
      await this.rgw.removeUser(row.uid, purge);
    } catch (error) {
      if (error instanceof CloudException && error.code === CloudErrorCode.Conflict) {
        throw new CloudException(
          CloudErrorCode.Conflict,
          'The user still owns buckets: delete them first',
          { details: error.details },
        );
      }
      throw error;
    }
    await this.repository.delete(row.id);
    await this.audit.record(
      principal,
      purge ? 'rgw_users.purge' : 'rgw_users.delete',
      { type: 'rgw_user', id: row.id },
      { name: row.name, uid: row.uid, purge_objects: purge },
    );
  }

  /**
   * A new S3 key replaces the user's: created, recorded, then the old one removed; a failure on
   * the way removes the new key again, so the user keeps exactly one key its owner knows. The
   * live part of the answer is read first, so nothing can fail once the old key is gone and the
   * new secret would be lost. Renewals of one user take turns on its row.
   */
  async renewKey(principal: Principal, id: string): Promise<RgwUserWithSecretResponse> {
    const before = await this.live(await this.find(principal, id));
    const { projectId } = projectOf(principal);
    const renewed = await this.dataSource.transaction(async (manager) => {
      const row = await this.repository.findInProject(projectId, id, manager, true);
      if (!row) throw notFound();
      const key = await this.rgw.createS3Key(row.uid, newAccessKeyId());
      try {
        await this.repository.setAccessKey(row.id, key.access_key, manager);
        await this.rgw.removeS3Key(row.uid, row.access_key);
      } catch (error) {
        await this.rgw
          .removeS3Key(row.uid, key.access_key)
          .catch((undo: unknown) => this.leftBehind(row.uid, undo));
        throw error;
      }
      return { key, oldAccessKey: row.access_key };
    });
    await this.audit.record(
      principal,
      'rgw_users.renew_key',
      { type: 'rgw_user', id },
      {
        access_key: renewed.key.access_key,
        previous_access_key: renewed.oldAccessKey,
      },
    );
    return { ...before, access_key: renewed.key.access_key, secret_key: renewed.key.secret_key };
  }

  /** The row with RGW's live usage, lock and quota (two reads, at once). */
  private async live(row: RgwUserRow): Promise<RgwUserResponse> {
    const [info, quota] = await Promise.all([
      this.rgw.userInfo(row.uid, true),
      this.rgw.userQuota(row.uid),
    ]);
    return userOf(row, info, quota);
  }

  private leftBehind(uid: string, error: unknown): void {
    this.logger.warn(
      `Could not undo a half-done change of RGW user ${uid}; check it in RGW: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
