import { Injectable } from '@nestjs/common';
import { preparedQuery } from '@platform/database';
import { DataSource, type EntityManager, IsNull } from 'typeorm';
import { Account, ApiToken, Membership, type Project } from '../entities.js';
import { projectFromRow } from '../organizations/projects.repository.js';

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
  /** With a project asked for: its columns, null when no such project exists. */
  project_organization_id?: string | null;
  project_name: string;
  project_created_at: Date;
  project_updated_at: Date;
}

const TOKEN_WITH_OWNER_COLUMNS = `t.id, t.organization_id, t.account_id, t.project_id, t.name, t.kind, t.last4,
              t.scopes, t.created_at, t.last_used_at,
              a.login AS account_login, a.name AS account_name,
              a.email_verified_at AS account_email_verified_at,
              a.is_platform_admin AS account_is_platform_admin,
              a.phone_number AS account_phone_number,
              a.phone_verified_at AS account_phone_verified_at,
              a.created_at AS account_created_at, a.updated_at AS account_updated_at,
              m.id AS membership_id, m.role AS membership_role,
              m.permissions AS membership_permissions, m.created_at AS membership_created_at,
              m.updated_at AS membership_updated_at`;
const TOKEN_WITH_OWNER_FROM = `api_token t
         JOIN account a ON a.id = t.account_id
         LEFT JOIN membership m
           ON m.account_id = t.account_id AND m.organization_id = t.organization_id`;

/** Every static-token request starts here: a named statement, prepared once per connection. */
const TOKEN_WITH_OWNER = {
  name: 'api-token-with-owner',
  text: `SELECT ${TOKEN_WITH_OWNER_COLUMNS}
         FROM ${TOKEN_WITH_OWNER_FROM}
        WHERE t.token_hash = $1 AND t.revoked_at IS NULL`,
};

/** The same, with the project a project-scoped route names (its columns null when none). */
const TOKEN_WITH_OWNER_AND_PROJECT = {
  name: 'api-token-with-owner-and-project',
  text: `SELECT ${TOKEN_WITH_OWNER_COLUMNS},
              p.organization_id AS project_organization_id, p.name AS project_name,
              p.created_at AS project_created_at, p.updated_at AS project_updated_at
         FROM ${TOKEN_WITH_OWNER_FROM}
         LEFT JOIN project p ON p.id = $2
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
   * statement is written out and its rows mapped by hand rather than built per request. With
   * `projectId` (a uuid), the same round trip reads that project too (null when none exists).
   */
  async findActiveWithOwner(
    tokenHash: string,
    projectId?: string,
  ): Promise<{
    token: ApiToken;
    account: Account;
    membership: Membership | null;
    project?: Project | null;
  } | null> {
    const rows = await preparedQuery<OwnedTokenRow>(
      this.dataSource,
      projectId === undefined ? TOKEN_WITH_OWNER : TOKEN_WITH_OWNER_AND_PROJECT,
      projectId === undefined ? [tokenHash] : [tokenHash, projectId],
    );
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
    if (projectId === undefined) return { token, account, membership };
    const project = row.project_organization_id
      ? projectFromRow(projectId, {
          organization_id: row.project_organization_id,
          name: row.project_name,
          created_at: row.project_created_at,
          updated_at: row.project_updated_at,
        })
      : null;
    return { token, account, membership, project };
  }

  /**
   * Of these token ids, the unrevoked tokens with what decides whether their owner may still
   * use them (read the way findActiveWithOwner reads one token), in one statement.
   */
  findActiveOwnership(ids: readonly string[]): Promise<
    Array<{
      id: string;
      kind: ApiToken['kind'];
      email_verified: boolean;
      is_platform_admin: boolean;
      is_member: boolean;
    }>
  > {
    return this.dataSource.query(
      `SELECT t.id, t.kind, a.email_verified_at IS NOT NULL AS email_verified,
              a.is_platform_admin, m.id IS NOT NULL AS is_member
         FROM ${TOKEN_WITH_OWNER_FROM}
        WHERE t.id = ANY($1::uuid[]) AND t.revoked_at IS NULL`,
      [ids],
    );
  }

  create(
    manager: EntityManager,
    fields: Omit<ApiToken, 'id' | 'lastUsedAt' | 'revokedAt'>,
  ): Promise<ApiToken> {
    const repository = manager.getRepository(ApiToken);
    return repository.save(repository.create({ ...fields, lastUsedAt: null, revokedAt: null }));
  }

  listForOrganization(organizationId: string): Promise<ApiToken[]> {
    return this.dataSource.getRepository(ApiToken).find({
      where: { organizationId, revokedAt: IsNull() },
      order: { createdAt: 'DESC', id: 'ASC' },
    });
  }

  /**
   * Revokes a live token of the organization (optionally only one owned by `ownerId`); the
   * revoked token, or null when none matched.
   */
  async revoke(
    manager: EntityManager,
    id: string,
    organizationId: string,
    ownerId: string | null,
    now: Date,
  ): Promise<Pick<ApiToken, 'id' | 'accountId' | 'projectId' | 'name' | 'kind'> | null> {
    const rows: Array<
      Pick<ApiToken, 'id' | 'name' | 'kind'> & {
        account_id: string;
        project_id: string | null;
      }
    > = await manager.query(
      `WITH revoked AS (
         UPDATE api_token SET revoked_at = $4
          WHERE id = $1 AND organization_id = $2 AND revoked_at IS NULL
            AND ($3::uuid IS NULL OR account_id = $3)
          RETURNING id, account_id, project_id, name, kind)
       SELECT * FROM revoked`,
      [id, organizationId, ownerId, now],
    );
    if (rows.length === 0) return null;
    const [row] = rows;
    return {
      id: row.id,
      accountId: row.account_id,
      projectId: row.project_id,
      name: row.name,
      kind: row.kind,
    };
  }

  async touch(id: string, now: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE api_token SET last_used_at = $2
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - make_interval(secs => $3))`,
      [id, now, LAST_USED_RESOLUTION_SECONDS],
    );
  }
}
