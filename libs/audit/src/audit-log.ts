import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import type { EntityManager } from 'typeorm';
import type { AuditActor } from './audit-actor.js';
import { AuditLogRepository } from './audit-log.repository.js';

/** What happened, where, and to what. `action` is `<resource>.<verb>`, e.g. `alerts.test`. */
export interface AuditEntry {
  actor: AuditActor;
  action: string;
  organizationId: string;
  projectId: string | null;
  target?: { type: string; id: string } | null;
  details?: Record<string, unknown>;
}

/**
 * Records audited actions. Pass the transaction's manager when the action writes in one, so
 * the entry commits or rolls back with what it describes.
 */
@Injectable()
export class AuditLog {
  constructor(
    private readonly clock: Clock,
    private readonly repository: AuditLogRepository,
  ) {}

  record(entry: AuditEntry, manager?: EntityManager): Promise<string> {
    return this.repository.insert(
      {
        organization_id: entry.organizationId,
        project_id: entry.projectId,
        actor_account_id: entry.actor.accountId,
        credential_kind: entry.actor.credential?.kind ?? null,
        credential_id: entry.actor.credential?.id ?? null,
        action: entry.action,
        target_type: entry.target?.type ?? null,
        target_id: entry.target?.id ?? null,
        details: entry.details ?? {},
        created_at: this.clock.now(),
      },
      manager,
    );
  }
}
