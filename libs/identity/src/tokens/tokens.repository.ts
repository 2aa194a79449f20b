import { Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import { Account, ApiToken, Membership } from '../entities.js';

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
   * when there is none), in one round trip: every static-token request starts here.
   */
  async findActiveWithOwner(
    tokenHash: string,
  ): Promise<{ token: ApiToken; account: Account; membership: Membership | null } | null> {
    const row = await this.dataSource
      .getRepository(ApiToken)
      .createQueryBuilder('token')
      .innerJoinAndMapOne('token.owner', Account, 'account', 'account.id = token.accountId')
      .leftJoinAndMapOne(
        'token.ownerMembership',
        Membership,
        'membership',
        'membership.accountId = token.accountId AND membership.organizationId = token.organizationId',
      )
      .where('token.tokenHash = :tokenHash AND token.revokedAt IS NULL', { tokenHash })
      .getOne();
    if (!row) return null;
    const { owner, ownerMembership, ...fields } = row as ApiToken & {
      owner: Account;
      ownerMembership?: Membership | null;
    };
    return {
      token: Object.assign(new ApiToken(), fields),
      account: owner,
      membership: ownerMembership ?? null,
    };
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
