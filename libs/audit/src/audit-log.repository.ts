import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { CredentialKind } from './audit-actor.js';

export interface AuditLogRow {
  id: string;
  organization_id: string;
  project_id: string | null;
  actor_account_id: string | null;
  credential_kind: CredentialKind | null;
  credential_id: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: Record<string, unknown>;
  created_at: Date;
}

export type NewAuditLogRow = Omit<AuditLogRow, 'id'>;

/** The audit_log table: append-only. */
@Injectable()
export class AuditLogRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(row: NewAuditLogRow, manager?: EntityManager): Promise<string> {
    const [inserted]: Array<{ id: string }> = await (manager ?? this.dataSource).query(
      `INSERT INTO audit_log (organization_id, project_id, actor_account_id, credential_kind,
                              credential_id, action, target_type, target_id, details, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       RETURNING id`,
      [
        row.organization_id,
        row.project_id,
        row.actor_account_id,
        row.credential_kind,
        row.credential_id,
        row.action,
        row.target_type,
        row.target_id,
        JSON.stringify(row.details),
        row.created_at,
      ],
    );
    return inserted.id;
  }
}
