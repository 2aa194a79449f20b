import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { escalationNotFound } from '../escalation-exception.js';
import { chainView, stepSnapshot } from './chain-view.js';
import type { CloneChainBody, CreateChainBody, UpdateChainBody } from './chains.dto.js';
import { MAX_CHAIN_NAME_LENGTH } from './chains.dto.js';
import { type ChainFields, type ChainRow, ChainsRepository } from './chains.repository.js';
import { StepTargetResolver } from './step-targets.js';

const COPY_SUFFIX = ' (copy)';

/** Who a step would page, as `resolved_targets` shows it: never a phone number. */
export type ResolvedRecipient =
  | { type: 'account'; account_id: string; name: string | null }
  | { type: 'phone_contact'; label: string };

/** "<name> (copy)", shortened so the copy's name still fits the name limit. */
export function copyName(name: string): string {
  return `${name.slice(0, MAX_CHAIN_NAME_LENGTH - COPY_SUFFIX.length)}${COPY_SUFFIX}`;
}

/**
 * Escalation chains. Rules beyond the spec, as built:
 * - `name` 1..200 characters (not blank), `description` up to 2000 (null stores ""),
 *   `re_escalation_after` 60..604800 seconds or null (default null: an acknowledged
 *   escalation never restarts), `repeats` 0..10 (default 0), listed by name then id. Names
 *   need not be unique.
 * - Every chain answer carries its steps in order; editing a chain or its steps never reaches
 *   an escalation already running (it keeps the snapshot taken when it opened).
 * - Deleting a chain deletes its steps; routes that referenced it stay, with
 *   `escalation_chain_id` null, and running escalations keep going on their snapshot.
 * - Clone copies the chain and every step (targets, channels, delays, order) under
 *   "<name> (copy)" unless a name is given; the copy is independent of the original.
 * - `resolved_targets` tells, per step, who it would page at this moment: accounts by id and
 *   name, external contacts by label only.
 */
@Injectable()
export class ChainsService {
  constructor(
    private readonly clock: Clock,
    private readonly chains: ChainsRepository,
    private readonly targets: StepTargetResolver,
  ) {}

  async list(projectId: string) {
    const rows = await this.chains.listChains(projectId);
    const steps = rows.length === 0 ? [] : await this.chains.listSteps(projectId, null);
    return rows.map((row) =>
      chainView(
        row,
        steps.filter((s) => s.chain_id === row.id),
      ),
    );
  }

  async show(projectId: string, id: string) {
    const row = await this.chains.findChain(projectId, id);
    if (!row) throw escalationNotFound('Escalation chain');
    return chainView(row, await this.chains.listSteps(projectId, [id]));
  }

  create(projectId: string, body: CreateChainBody) {
    return this.chains.transaction(async (manager) => {
      const id = await this.chains.insertChain(
        manager,
        projectId,
        {
          name: body.name,
          description: body.description ?? '',
          re_escalation_after: body.re_escalation_after ?? null,
          repeats: body.repeats ?? 0,
        },
        this.clock.now(),
      );
      return chainView(await this.chains.findChain(projectId, id, manager), []);
    });
  }

  update(projectId: string, id: string, body: UpdateChainBody) {
    return this.chains.transaction(async (manager) => {
      const current = await this.chains.lockChain(manager, projectId, id);
      if (!current) throw escalationNotFound('Escalation chain');
      const given = (key: keyof UpdateChainBody) => body[key] !== undefined;
      const fields: ChainFields = {
        name: body.name ?? current.name,
        description: given('description') ? (body.description ?? '') : current.description,
        re_escalation_after: given('re_escalation_after')
          ? (body.re_escalation_after ?? null)
          : current.re_escalation_after,
        repeats: body.repeats ?? current.repeats,
      };
      await this.chains.updateChain(manager, id, fields, this.clock.now());
      return chainView(
        await this.chains.findChain(projectId, id, manager),
        await this.chains.listSteps(projectId, [id], manager),
      );
    });
  }

  async delete(projectId: string, id: string): Promise<void> {
    if (!(await this.chains.deleteChain(projectId, id)))
      throw escalationNotFound('Escalation chain');
  }

  clone(projectId: string, id: string, body: CloneChainBody) {
    return this.chains.transaction(async (manager) => {
      const source: ChainRow | null = await this.chains.lockChain(manager, projectId, id);
      if (!source) throw escalationNotFound('Escalation chain');
      const at = this.clock.now();
      const copyId = await this.chains.insertChain(
        manager,
        projectId,
        {
          name: body.name ?? copyName(source.name),
          description: source.description,
          re_escalation_after: source.re_escalation_after,
          repeats: source.repeats,
        },
        at,
      );
      await this.chains.copySteps(manager, id, copyId, at);
      return chainView(
        await this.chains.findChain(projectId, copyId, manager),
        await this.chains.listSteps(projectId, [copyId], manager),
      );
    });
  }

  async resolvedTargets(projectId: string, id: string) {
    const chain = await this.chains.findChain(projectId, id);
    if (!chain) throw escalationNotFound('Escalation chain');
    const steps = await this.chains.listSteps(projectId, [id]);
    const organizationId = await this.chains.organizationOf(projectId);
    const resolved = await this.targets.resolve(
      steps.map((step) => ({ organizationId, step: stepSnapshot(step) })),
      this.clock.now(),
    );
    const accountIds = resolved.flat().flatMap((r) => (r.kind === 'account' ? [r.accountId] : []));
    const names = await this.chains.accountNames([...new Set(accountIds)]);
    return steps.map((step, i) => ({
      step_id: step.id,
      position: step.position,
      delay_seconds: step.delay_seconds,
      target_type: step.target_type,
      channels: step.channels,
      recipients: resolved[i].map((r): ResolvedRecipient =>
        r.kind === 'account'
          ? { type: 'account', account_id: r.accountId, name: names.get(r.accountId) ?? null }
          : { type: 'phone_contact', label: r.label },
      ),
    }));
  }
}
