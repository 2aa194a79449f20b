import { Injectable } from '@nestjs/common';
import { preparedQuery } from '@platform/database';
import { DataSource, IsNull } from 'typeorm';
import { Account, ApiToken, Membership } from '../entities.js';

/** A token row with its owner's columns and, when there is one, the owner's membership. */
interface OwnedTokenRow {
  id: string;
  organization_id: string;
  account_id: string;
  project_id: string | null;
  name: string;
  kind: ApiToken['kind'];
  last4: string;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  account_login: string;
  account_name: string;
  account_email_verified_at: Date | null;
  account_is_platform_admin: boolean;
  account_phone_number: string | null;
  account_phone_verified_at: Date | null;
  account_created_at: Date;
  account_updated_at: Date;
  membership_id: string | null;
  membership_role: Membership['role'];
  membership_permissions: Membership['permissions'];
  membership_created_at: Date;
  membership_updated_at: Date;
}

/** Every static-token request starts here: a named statement, prepared once per connection. */
const TOKEN_WITH_OWNER = {
  name: 'api-token-with-owner',
  text: `SELECT t.id, t.organization_id, t.account_id, t.project_id, t.name, t.kind, t.last4,
              t.scopes, t.created_at, t.last_used_at,
              a.login AS account_login, a.name AS account_name,
              a.email_verified_at AS account_email_verified_at,
              a.is_platform_admin AS account_is_platform_admin,
              a.phone_number AS account_phone_number,
              a.phone_verified_at AS account_phone_verified_at,
              a.created_at AS account_created_at, a.updated_at AS account_updated_at,
              m.id AS membership_id, m.role AS membership_role,
              m.permissions AS membership_permissions, m.created_at AS membership_created_at,
              m.updated_at AS membership_updated_at
         FROM api_token t
         JOIN account a ON a.id = t.account_id
         LEFT JOIN membership m
           ON m.account_id = t.account_id AND m.organization_id = t.organization_id
        WHERE t.token_hash = $1 AND t.revoked_at IS NULL`,
};

/** last_used_at is written at most once a minute per token, not on every request. */
export const LAST_USED_RESOLUTION_SECONDS = 60;

@Injectable()
export class TokensRepository {
  constructor(private readonly dataSource: DataSource) {}

  findActiveByHash(tokenHash: string): Promise<ApiToken | null> {
    return this.dataSource.getRepository(ApiToken).findOneBy({ tokenHash, revokedAt: IsNull() });
  }

  /**
   * A live token with its owner and the owner's membership in the token's organization (null
   * when there is none), in one round trip: every static-token request starts here, so the
   * statement is written out and its rows mapped by hand rather than built per request.
   */
  async findActiveWithOwner(
    tokenHash: string,
  ): Promise<{ token: ApiToken; account: Account; membership: Membership | null } | null> {
    const rows = await preparedQuery<OwnedTokenRow>(this.dataSource, TOKEN_WITH_OWNER, [tokenHash]);
    if (rows.length === 0) return null;
    const [row] = rows;
    const token = Object.assign(new ApiToken(), {
      id: row.id,
      organizationId: row.organization_id,
      accountId: row.account_id,
      projectId: row.project_id,
      name: row.name,
      kind: row.kind,
      tokenHash,
      last4: row.last4,
      scopes: row.scopes,
      createdAt: row.created_at,
      lastUsedAt: row.last_used_at,
      revokedAt: null,
    });
    const account = Object.assign(new Account(), {
      id: row.account_id,
      login: row.account_login,
      name: row.account_name,
      emailVerifiedAt: row.account_email_verified_at,
      isPlatformAdmin: row.account_is_platform_admin,
      phoneNumber: row.account_phone_number,
      phoneVerifiedAt: row.account_phone_verified_at,
      createdAt: row.account_created_at,
      updatedAt: row.account_updated_at,
    });
    const membership =
      row.membership_id === null
        ? null
        : Object.assign(new Membership(), {
            id: row.membership_id,
            organizationId: row.organization_id,
            accountId: row.account_id,
            role: row.membership_role,
            permissions: row.membership_permissions,
            createdAt: row.membership_created_at,
            updatedAt: row.membership_updated_at,
          });
    return { token, account, membership };
  }

  create(fields: Omit<ApiToken, 'id' | 'lastUsedAt' | 'revokedAt'>): Promise<ApiToken> {
    const repository = this.dataSource.getRepository(ApiToken);
    return repository.save(repository.create({ ...fields, lastUsedAt: null, revokedAt: null }));
  }

  listForOrganization(organizationId: string): Promise<ApiToken[]> {
    return this.dataSource.getRepository(ApiToken).find({
      where: { organizationId, revokedAt: IsNull() },
      order: { createdAt: 'DESC', id: 'ASC' },
    });
  }

  /** Revokes a live token of the organization (optionally only one owned by `ownerId`); false when none matched. */
  async revoke(
    id: string,
    organizationId: string,
    ownerId: string | null,
    now: Date,
  ): Promise<boolean> {
    const query = this.dataSource
      .createQueryBuilder()
      .update(ApiToken)
      .set({ revokedAt: now })
      .where('id = :id AND organization_id = :organizationId AND revoked_at IS NULL', {
        id,
        organizationId,
      });
    if (ownerId) query.andWhere('account_id = :ownerId', { ownerId });
    const result = await query.execute();
    return (result.affected ?? 0) > 0;
  }

  async touch(id: string, now: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE api_token SET last_used_at = $2
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - make_interval(secs => $3))`,
      [id, now, LAST_USED_RESOLUTION_SECONDS],
    );
  }
}
