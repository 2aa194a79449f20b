import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { KindSet } from '../catalog/kinds.js';

export type FeatureRequestStatus = 'pending' | 'approved' | 'rejected';

export interface FeatureRequestRow {
  id: string;
  project_id: string;
  feature_key: string;
  requested_kinds: string[] | null;
  message: string | null;
  status: FeatureRequestStatus;
  requested_by: string | null;
  requested_by_name: string | null;
  decided_by: string | null;
  decided_by_name: string | null;
  decided_at: Date | null;
  decision_note: string | null;
  created_at: Date;
}

const SELECT = `
  SELECT r.id, r.project_id, r.feature_key, r.requested_kinds, r.message, r.status,
         r.requested_by, req.name AS requested_by_name, r.decided_by, dec.name AS decided_by_name,
         r.decided_at, r.decision_note, r.created_at
    FROM feature_request r
    LEFT JOIN account req ON req.id = r.requested_by
    LEFT JOIN account dec ON dec.id = r.decided_by`;

@Injectable()
export class FeatureRequestsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async create(request: {
    projectId: string;
    featureKey: string;
    kinds: KindSet;
    message: string | null;
    requestedBy: string;
    at: Date;
  }): Promise<FeatureRequestRow> {
    const [{ id }]: Array<{ id: string }> = await this.dataSource.query(
      `INSERT INTO feature_request (project_id, feature_key, requested_kinds, message, status, requested_by, created_at)
       VALUES ($1, $2, $3, $4, 'pending', $5, $6) RETURNING id`,
      [
        request.projectId,
        request.featureKey,
        request.kinds,
        request.message,
        request.requestedBy,
        request.at,
      ],
    );
    return (await this.find(id, request.projectId))!;
  }

  list(projectId: string, status?: FeatureRequestStatus): Promise<FeatureRequestRow[]> {
    return this.dataSource.query(
      `${SELECT} WHERE r.project_id = $1 AND ($2::text IS NULL OR r.status = $2)
        ORDER BY r.created_at DESC, r.id`,
      [projectId, status ?? null],
    );
  }

  async find(
    id: string,
    projectId: string,
    manager?: EntityManager,
  ): Promise<FeatureRequestRow | null> {
    const rows: FeatureRequestRow[] = await (manager ?? this.dataSource).query(
      `${SELECT} WHERE r.id = $1 AND r.project_id = $2`,
      [id, projectId],
    );
    return rows[0] ?? null;
  }

  /** Locks the request row for a decision; null when it is not in the project. */
  async lock(manager: EntityManager, id: string, projectId: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      'SELECT 1 FROM feature_request WHERE id = $1 AND project_id = $2 FOR UPDATE',
      [id, projectId],
    );
    return rows.length > 0;
  }

  async decide(
    manager: EntityManager,
    decision: {
      id: string;
      status: 'approved' | 'rejected';
      decidedBy: string;
      at: Date;
      note: string | null;
    },
  ): Promise<void> {
    await manager.query(
      `UPDATE feature_request SET status = $2, decided_by = $3, decided_at = $4, decision_note = $5
        WHERE id = $1`,
      [decision.id, decision.status, decision.decidedBy, decision.at, decision.note],
    );
  }
}
