import type { IngestTokenResponseDto } from '../alerting.openapi.js';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@platform/core';
import { organizationOf, type Principal, TokensService } from '@platform/identity';
import { Document } from 'yaml';
import type { Severity } from '../severity.js';
import { IngestSeverityMapsRepository } from './ingest-severity-maps.repository.js';
import { severityMappingOf } from './severity-mapping.js';

/** What the mint body asks of the new token. */
export interface IngestTokenRequest {
  name?: string;
  currentPassword?: string;
  severityMap?: Record<string, string> | null;
  defaultSeverity?: Severity | null;
}

/** The only scope an ingest token carries. */
export const INGEST_TOKEN_SCOPES = ['alerts:write'];
export const DEFAULT_INGEST_TOKEN_NAME = 'Alertmanager ingest';
export const INGEST_RECEIVER_NAME = 'platform-alerts';

/**
 * Ingest tokens: project-bound static tokens (`hq_ing_…`, kind `ingest`) carrying only
 * `alerts:write`, good for the ingest endpoint of their project and nothing else. They are
 * listed and revoked with the other tokens (`GET /tokens`, `DELETE /tokens/{id}`) and, like
 * every token, act within their owner's current permissions.
 */
@Injectable()
export class IngestTokensService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tokens: TokensService,
    private readonly severityMaps: IngestSeverityMapsRepository,
  ) {}

  /**
   * A session older than 15 minutes also sends the account's current password. The severity
   * mapping, when asked for, is stored with the token in the same transaction.
   */
  async mint(
    principal: Principal,
    projectId: string,
    request: IngestTokenRequest = {},
  ): Promise<IngestTokenResponseDto> {
    const mapping = severityMappingOf(request.severityMap, request.defaultSeverity);
    const minted = await this.tokens.mint(
      principal,
      organizationOf(principal),
      { name: request.name ?? DEFAULT_INGEST_TOKEN_NAME, scopes: INGEST_TOKEN_SCOPES },
      {
        kind: 'ingest',
        projectId,
        currentPassword: request.currentPassword,
        within: mapping
          ? (manager, tokenId) => this.severityMaps.insert(manager, tokenId, projectId, mapping)
          : undefined,
      },
    );
    return {
      token_id: minted.token_id,
      token: minted.token,
      scopes: minted.scopes,
      project_id: projectId,
      webhook_config_snippet: this.snippet(projectId, minted.token),
      severity_map: mapping?.map ?? {},
      default_severity: mapping?.defaultSeverity ?? null,
    };
  }

  ingestUrl(projectId: string): string {
    return `${this.config.publicUrl.replace(/\/+$/, '')}/projects/${projectId}/alerts`;
  }

  /**
   * A receiver to paste under `receivers:` of alertmanager.yml: the ingest URL, the token as
   * bearer credentials, and resolved notifications on (the platform resolves alerts from them).
   */
  snippet(projectId: string, token: string): string {
    const document = new Document({
      receivers: [
        {
          name: INGEST_RECEIVER_NAME,
          webhook_configs: [
            {
              url: this.ingestUrl(projectId),
              send_resolved: true,
              http_config: { authorization: { type: 'Bearer', credentials: token } },
            },
          ],
        },
      ],
    });
    document.commentBefore = ` Alertmanager receiver for project ${projectId}; route alerts to it with receiver: ${INGEST_RECEIVER_NAME}`;
    return document.toString();
  }
}
