import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { PageChannel, StepTargetRole, StepTargetType } from './chain-snapshot.js';

/** The writable state of a chain. */
export interface ChainFields {
  name: string;
  description: string;
  re_escalation_after: number | null;
  repeats: number;
}

export interface ChainRow extends ChainFields {
  id: string;
  project_id: string;
  created_at: Date;
  updated_at: Date;
}

/** The writable state of a step, besides its position. */
export interface StepFields {
  delay_seconds: number;
  target_type: StepTargetType;
  target_roster_id: string | null;
  target_member_id: string | null;
  target_role: StepTargetRole | null;
  channels: PageChannel[];
}

export interface StepRow extends StepFields {
  id: string;
  chain_id: string;
  position: number;
  created_at: Date;
  updated_at: Date;
}

const CHAIN_COLUMNS =
  'c.id, c.project_id, c.name, c.description, c.re_escalation_after, c.repeats, c.created_at, c.updated_at';
const STEP_COLUMNS = `s.id, s.chain_id, s.position, s.delay_seconds, s.target_type,
  s.target_roster_id, s.target_member_id, s.target_role, s.channels, s.created_at, s.updated_at`;

type Runner = DataSource | EntityManager;

/**
 * Escalation chains and their steps. Steps carry no project of their own: every statement
 * reaches them through their chain's project_id, so another project's ids match nothing.
 */
@Injectable()
export class ChainsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  listChains(projectId: string): Promise<ChainRow[]> {
    return this.dataSource.query(
      `SELECT ${CHAIN_COLUMNS} FROM escalation_chain c WHERE c.project_id = $1 ORDER BY c.name, c.id`,
      [projectId],
    );
  }

  async findChain(projectId: string, id: string, runner: Runner = this.dataSource) {
    const rows: ChainRow[] = await runner.query(
      `SELECT ${CHAIN_COLUMNS} FROM escalation_chain c WHERE c.project_id = $1 AND c.id = $2`,
      [projectId, id],
    );
    return rows[0] ?? null;
  }

  /** Locks the chain so concurrent edits of it and its steps apply in turn. */
  async lockChain(manager: EntityManager, projectId: string, id: string) {
    const rows: ChainRow[] = await manager.query(
      `SELECT ${CHAIN_COLUMNS} FROM escalation_chain c
        WHERE c.project_id = $1 AND c.id = $2 FOR UPDATE`,
      [projectId, id],
    );
    return rows[0] ?? null;
  }

  async insertChain(
    manager: EntityManager,
    projectId: string,
    fields: ChainFields,
    at: Date,
  ): Promise<string> {
    const rows: Array<{ id: string }> = await manager.query(
      `INSERT INTO escalation_chain
         (project_id, name, description, re_escalation_after, repeats, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id`,
      [projectId, fields.name, fields.description, fields.re_escalation_after, fields.repeats, at],
    );
    return rows[0].id;
  }

  async updateChain(manager: EntityManager, id: string, fields: ChainFields, at: Date) {
    await manager.query(
      `UPDATE escalation_chain
          SET name = $2, description = $3, re_escalation_after = $4, repeats = $5, updated_at = $6
        WHERE id = $1`,
      [id, fields.name, fields.description, fields.re_escalation_after, fields.repeats, at],
    );
  }

  async deleteChain(projectId: string, id: string): Promise<boolean> {
    const deleted: unknown[] = await this.dataSource.query(
      `WITH deleted AS (
         DELETE FROM escalation_chain WHERE project_id = $1 AND id = $2 RETURNING id
       ) SELECT id FROM deleted`,
      [projectId, id],
    );
    return deleted.length > 0;
  }

  /** Steps of the project's chains (all of them when `chainIds` is null), in chain order. */
  listSteps(
    projectId: string,
    chainIds: readonly string[] | null,
    runner: Runner = this.dataSource,
  ): Promise<StepRow[]> {
    return runner.query(
      `SELECT ${STEP_COLUMNS} FROM escalation_step s
         JOIN escalation_chain c ON c.id = s.chain_id
        WHERE c.project_id = $1 AND ($2::uuid[] IS NULL OR c.id = ANY ($2::uuid[]))
        ORDER BY s.chain_id, s.position, s.id`,
      [projectId, chainIds],
    );
  }

  async findStep(
    projectId: string,
    chainId: string,
    id: string,
    runner: Runner = this.dataSource,
  ): Promise<StepRow | null> {
    const rows: StepRow[] = await runner.query(
      `SELECT ${STEP_COLUMNS} FROM escalation_step s
         JOIN escalation_chain c ON c.id = s.chain_id
        WHERE c.project_id = $1 AND c.id = $2 AND s.id = $3`,
      [projectId, chainId, id],
    );
    return rows[0] ?? null;
  }

  /** Inserts a step of a chain already known (and locked) to be the project's. */
  async insertStep(
    manager: EntityManager,
    chainId: string,
    position: number,
    fields: StepFields,
    at: Date,
  ): Promise<string> {
    const rows: Array<{ id: string }> = await manager.query(
      `INSERT INTO escalation_step
         (chain_id, position, delay_seconds, target_type, target_roster_id, target_member_id,
          target_role, channels, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text[], $9, $9) RETURNING id`,
      [chainId, position, ...stepValues(fields), at],
    );
    return rows[0].id;
  }

  async updateStep(manager: EntityManager, id: string, fields: StepFields, at: Date) {
    await manager.query(
      `UPDATE escalation_step
          SET delay_seconds = $2, target_type = $3, target_roster_id = $4, target_member_id = $5,
              target_role = $6, channels = $7::text[], updated_at = $8
        WHERE id = $1`,
      [id, ...stepValues(fields), at],
    );
  }

  async deleteStep(manager: EntityManager, chainId: string, id: string): Promise<void> {
    await manager.query('DELETE FROM escalation_step WHERE chain_id = $1 AND id = $2', [
      chainId,
      id,
    ]);
  }

  /** Sets each step's position to its index in `orderedIds` (steps of `chainId` only). */
  async setPositions(
    manager: EntityManager,
    chainId: string,
    orderedIds: readonly string[],
  ): Promise<void> {
    if (orderedIds.length === 0) return;
    await manager.query(
      `UPDATE escalation_step s SET position = o.ordinality - 1
         FROM unnest($2::uuid[]) WITH ORDINALITY AS o (id, ordinality)
        WHERE s.chain_id = $1 AND s.id = o.id AND s.position <> o.ordinality - 1`,
      [chainId, orderedIds],
    );
  }

  /** Copies every step of one chain into another, keeping their order. */
  async copySteps(manager: EntityManager, fromChainId: string, toChainId: string, at: Date) {
    await manager.query(
      `INSERT INTO escalation_step
         (chain_id, position, delay_seconds, target_type, target_roster_id, target_member_id,
          target_role, channels, created_at, updated_at)
       SELECT $2, position, delay_seconds, target_type, target_roster_id, target_member_id,
              target_role, channels, $3, $3
         FROM escalation_step WHERE chain_id = $1`,
      [fromChainId, toChainId, at],
    );
  }

  async rosterInProject(manager: EntityManager, projectId: string, id: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      'SELECT 1 FROM on_call_roster WHERE project_id = $1 AND id = $2',
      [projectId, id],
    );
    return rows.length > 0;
  }

  /** Whether the account holds a membership in the organization the project belongs to. */
  async memberOfProject(
    manager: EntityManager,
    projectId: string,
    accountId: string,
  ): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM project p
         JOIN membership m ON m.organization_id = p.organization_id
        WHERE p.id = $1 AND m.account_id = $2`,
      [projectId, accountId],
    );
    return rows.length > 0;
  }

  async organizationOf(projectId: string): Promise<string> {
    const rows: Array<{ organization_id: string }> = await this.dataSource.query(
      'SELECT organization_id FROM project WHERE id = $1',
      [projectId],
    );
    return rows[0].organization_id;
  }

  async accountNames(ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows: Array<{ id: string; name: string }> = await this.dataSource.query(
      'SELECT id, name FROM account WHERE id = ANY ($1::uuid[])',
      [ids],
    );
    return new Map(rows.map((r) => [r.id, r.name]));
  }
}

function stepValues(fields: StepFields): unknown[] {
  return [
    fields.delay_seconds,
    fields.target_type,
    fields.target_roster_id,
    fields.target_member_id,
    fields.target_role,
    fields.channels,
  ];
}
