import type { StepSnapshot } from './chain-snapshot.js';
import type { ChainRow, StepRow } from './chains.repository.js';
import type { EscalationChain, EscalationStep } from './chains.openapi.js';

/** A step as the API shows it. */
export function stepView(row: StepRow): EscalationStep {
  return {
    id: row.id,
    chain_id: row.chain_id,
    position: row.position,
    delay_seconds: row.delay_seconds,
    target_type: row.target_type,
    target_roster_id: row.target_roster_id,
    target_member_id: row.target_member_id,
    target_role: row.target_role,
    channels: row.channels,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A chain as the API shows it, with its steps in order. */
export function chainView(row: ChainRow, steps: readonly StepRow[]): EscalationChain {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    description: row.description,
    re_escalation_after: row.re_escalation_after,
    repeats: row.repeats,
    steps: [...steps].sort((a, b) => a.position - b.position).map(stepView),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The columns of a stored step that decide whom it pages. */
export function stepSnapshot(row: StepRow): StepSnapshot {
  return {
    id: row.id,
    position: row.position,
    delay_seconds: row.delay_seconds,
    target_type: row.target_type,
    target_roster_id: row.target_roster_id,
    target_member_id: row.target_member_id,
    target_role: row.target_role,
    channels: row.channels,
  };
}
