import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { allows, scopesAllow } from '../access/permissions.js';
import type { Principal } from '../access/principal.js';
import { randomSecret, sha256 } from '../auth/secrets.js';
import type { ApiToken, TokenKind } from '../entities.js';
import { notFound } from '../identity-exception.js';
import type { TokenFields } from './tokens.dto.js';
import { TokensRepository } from './tokens.repository.js';

/** Raw values start with a kind-specific prefix so leaked tokens are recognisable. */
export const TOKEN_PREFIX: Record<TokenKind, string> = { api: 'hq_pat_', ingest: 'hq_ing_' };

export function tokenView(token: ApiToken) {
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

@Injectable()
export class TokensService {
  constructor(
    private readonly clock: Clock,
    private readonly tokens: TokensRepository,
  ) {}

  /** Mints a token; its raw value is in this response only, the database keeps its hash. */
  async mint(
    principal: Principal,
    organizationId: string,
    fields: TokenFields,
    kind: TokenKind = 'api',
    projectId: string | null = null,
  ) {
    const raw = randomSecret(TOKEN_PREFIX[kind]);
    const token = await this.tokens.create({
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
    const revoked = await this.tokens.revoke(
      id,
      organizationId,
      canRevokeAny ? null : principal.account.id,
      this.clock.now(),
    );
    if (!revoked) throw notFound('Token');
  }
}
