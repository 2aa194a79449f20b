import type { TokenResponseDto } from '../identity.openapi.js';
import { Injectable } from '@nestjs/common';
import { actorOf, AuditLog } from '@platform/audit';
import { Clock } from '@platform/core';
import { DataSource, type EntityManager } from 'typeorm';
import { allows, scopesAllow } from '../access/permissions.js';
import type { Principal } from '../access/principal.js';
import { Reauthentication } from '../auth/reauthentication.js';
import { randomSecret, sha256 } from '../auth/secrets.js';
import type { ApiToken, TokenKind } from '../entities.js';
import { notFound } from '../identity-exception.js';
import type { TokenFields } from './tokens.dto.js';
import { TokensRepository } from './tokens.repository.js';
import { SecurityNotices } from '../security/security-notices.js';

/** Raw values start with a kind-specific prefix so leaked tokens are recognisable. */
export const TOKEN_PREFIX: Record<TokenKind, string> = { api: 'hq_pat_', ingest: 'hq_ing_' };

export function tokenView(token: ApiToken): TokenResponseDto {
  return {
    token_id: token.id,
    name: token.name,
    scopes: token.scopes,
    last4: token.last4,
    kind: token.kind,
    project_id: token.projectId,
    account_id: token.accountId,
    created_at: token.createdAt,
    last_used_at: token.lastUsedAt,
  };
}

export interface MintOptions {
  kind?: TokenKind;
  /** The project an ingest token is bound to. */
  projectId?: string | null;
  /** The body's `current_password`, for a session older than the reauthentication window. */
  currentPassword?: string;
  /** Writes what another library keeps about the new token, in the minting transaction. */
  within?: (manager: EntityManager, tokenId: string) => Promise<void>;
}

/**
 * Static tokens. Minting needs a fresh login or the current password (Reauthentication), and
 * minting and revoking are audited (`tokens.create`, `tokens.revoke`, target the token) in the
 * transaction that makes the change.
 */
@Injectable()
export class TokensService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly tokens: TokensRepository,
    private readonly reauthentication: Reauthentication,
    private readonly audit: AuditLog,
    private readonly notices: SecurityNotices,
  ) {}

  /** Mints a token; its raw value is in this response only, the database keeps its hash. */
  async mint(
    principal: Principal,
    organizationId: string,
    fields: TokenFields,
    { kind = 'api', projectId = null, currentPassword, within }: MintOptions = {},
  ) {
    await this.reauthentication.assertFreshOrPassword(principal, currentPassword);
    const raw = randomSecret(TOKEN_PREFIX[kind]);
    const token = await this.dataSource.transaction(async (manager) => {
      const created = await this.tokens.create(manager, {
        organizationId,
        accountId: principal.account.id,
        projectId,
        name: fields.name.trim(),
        kind,
        tokenHash: sha256(raw),
        last4: raw.slice(-4),
        scopes: [...new Set(fields.scopes)],
        createdAt: this.clock.now(),
      });
      await this.audit.record(
        {
          actor: actorOf(principal),
          action: 'tokens.create',
          organizationId,
          projectId,
          target: { type: 'api_token', id: created.id },
          details: { name: created.name, kind, scopes: created.scopes },
        },
        manager,
      );
      await within?.(manager, created.id);
      return created;
    });
    this.notices.tell({
      event: 'token_created',
      accountId: principal.account.id,
      organizationId,
      path: `/tokens?organization_id=${organizationId}`,
      details: { token_id: token.id, token_name: token.name, kind, actor_id: principal.account.id },
    });
    return { ...tokenView(token), token: raw };
  }

  async list(organizationId: string) {
    return (await this.tokens.listForOrganization(organizationId)).map(tokenView);
  }

  /** Anyone may revoke their own token; tokens:delete revokes anyone's in the organization. */
  async revoke(principal: Principal, organizationId: string, id: string): Promise<void> {
    const canRevokeAny =
      principal.permissions !== null &&
      allows(principal.permissions, 'tokens', 'delete') &&
      (!principal.token || scopesAllow(principal.token.scopes, 'tokens', 'delete'));
    const revoked = await this.dataSource.transaction(async (manager) => {
      const revoked = await this.tokens.revoke(
        manager,
        id,
        organizationId,
        canRevokeAny ? null : principal.account.id,
        this.clock.now(),
      );
      if (!revoked) throw notFound('Token');
      await this.audit.record(
        {
          actor: actorOf(principal),
          action: 'tokens.revoke',
          organizationId,
          projectId: revoked.projectId,
          target: { type: 'api_token', id: revoked.id },
          details: { name: revoked.name, kind: revoked.kind, owner_account_id: revoked.accountId },
        },
        manager,
      );
      return revoked;
    });
    this.notices.tell({
      event: 'token_revoked',
      accountId: revoked.accountId,
      organizationId,
      path: `/tokens?organization_id=${organizationId}`,
      details: {
        token_id: revoked.id,
        token_name: revoked.name,
        kind: revoked.kind,
        actor_id: principal.account.id,
      },
    });
  }
}
