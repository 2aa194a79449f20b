import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import type { EntityManager } from 'typeorm';
import { escalationNotFound, escalationValidation } from '../escalation-exception.js';
import { stepView } from './chain-view.js';
import { ChainsRepository, type StepFields } from './chains.repository.js';
import type { CreateStepBody, UpdateStepBody } from './escalation-steps.dto.js';
import {
  type FieldProblem,
  MAX_STEPS_PER_CHAIN,
  mergeStep,
  placeStep,
  positionProblem,
} from './step-rules.js';

/**
 * Steps of an escalation chain. Rules beyond the spec, as built:
 * - Positions are 0-based and dense. Create inserts at `position` (0..n; default: append) and
 *   moves the later steps down; update with `position` (0..n-1) moves the step, shifting the
 *   steps in between; delete closes the gap. Only the created or edited step's `updated_at`
 *   changes when its neighbours shift.
 * - At most 20 steps per chain: a 21st is refused with 422 `validation_failed` naming the
 *   field `escalation_steps`, nothing written.
 * - A target field that the step's `target_type` does not use must be absent or null in the
 *   request (422 otherwise); changing `target_type` clears the previous type's stored field.
 * - `target_roster_id` must be a roster of the same project, `target_member_id` an account
 *   holding a membership in the project's organization (checked whenever the request sends a
 *   target field or channels, and on create).
 * - `channels` are stored once each, in the order in_app, email, phone, sms; a phone_contacts
 *   step pages by phone and sms only.
 */
@Injectable()
export class EscalationStepsService {
  constructor(
    private readonly clock: Clock,
    private readonly chains: ChainsRepository,
  ) {}

  async list(projectId: string, chainId: string) {
    if (!(await this.chains.findChain(projectId, chainId)))
      throw escalationNotFound('Escalation chain');
    return (await this.chains.listSteps(projectId, [chainId])).map(stepView);
  }

  async show(projectId: string, chainId: string, id: string) {
    const step = await this.chains.findStep(projectId, chainId, id);
    if (!step) throw escalationNotFound('Escalation step');
    return stepView(step);
  }

  create(projectId: string, chainId: string, body: CreateStepBody) {
    return this.chains.transaction(async (manager) => {
      if (!(await this.chains.lockChain(manager, projectId, chainId)))
        throw escalationNotFound('Escalation chain');
      const steps = await this.chains.listSteps(projectId, [chainId], manager);
      if (steps.length >= MAX_STEPS_PER_CHAIN)
        throw escalationValidation([
          {
            field: 'escalation_steps',
            messages: [`an escalation chain holds at most ${MAX_STEPS_PER_CHAIN} steps`],
          },
        ]);
      const position = body.position ?? steps.length;
      const fields = await this.validated(manager, projectId, null, body, [
        positionProblem(position, steps.length + 1),
      ]);
      const id = await this.chains.insertStep(
        manager,
        chainId,
        steps.length,
        fields,
        this.clock.now(),
      );
      const order = placeStep(
        steps.map((s) => s.id),
        id,
        position,
      );
      await this.chains.setPositions(manager, chainId, order);
      return stepView((await this.chains.findStep(projectId, chainId, id, manager))!);
    });
  }

  update(projectId: string, chainId: string, id: string, body: UpdateStepBody) {
    return this.chains.transaction(async (manager) => {
      if (!(await this.chains.lockChain(manager, projectId, chainId)))
        throw escalationNotFound('Escalation chain');
      const steps = await this.chains.listSteps(projectId, [chainId], manager);
      const current = steps.find((s) => s.id === id);
      if (!current) throw escalationNotFound('Escalation step');
      const fields = await this.validated(manager, projectId, current, body, [
        body.position === undefined ? null : positionProblem(body.position, steps.length),
      ]);
      await this.chains.updateStep(manager, id, fields, this.clock.now());
      if (body.position !== undefined && body.position !== current.position)
        await this.chains.setPositions(
          manager,
          chainId,
          placeStep(
            steps.map((s) => s.id),
            id,
            body.position,
          ),
        );
      return stepView((await this.chains.findStep(projectId, chainId, id, manager))!);
    });
  }

  delete(projectId: string, chainId: string, id: string): Promise<void> {
    return this.chains.transaction(async (manager) => {
      if (!(await this.chains.lockChain(manager, projectId, chainId)))
        throw escalationNotFound('Escalation chain');
      const steps = await this.chains.listSteps(projectId, [chainId], manager);
      if (!steps.some((s) => s.id === id)) throw escalationNotFound('Escalation step');
      await this.chains.deleteStep(manager, chainId, id);
      await this.chains.setPositions(
        manager,
        chainId,
        steps.filter((s) => s.id !== id).map((s) => s.id),
      );
    });
  }

  /** The merged step, or 422 naming every bad field (`extra` problems first). */
  private async validated(
    manager: EntityManager,
    projectId: string,
    current: StepFields | null,
    body: CreateStepBody | UpdateStepBody,
    extra: Array<FieldProblem | null>,
  ): Promise<StepFields> {
    const merged = mergeStep(current, body);
    const problems = [...extra.filter((p): p is FieldProblem => p !== null), ...merged.problems];
    if (
      merged.rosterToCheck !== null &&
      !(await this.chains.rosterInProject(manager, projectId, merged.rosterToCheck))
    )
      problems.push({
        field: 'target_roster_id',
        messages: ['target_roster_id must be an on-call roster of this project'],
      });
    if (
      merged.memberToCheck !== null &&
      !(await this.chains.memberOfProject(manager, projectId, merged.memberToCheck))
    )
      problems.push({
        field: 'target_member_id',
        messages: [
          "target_member_id must be an account holding a membership in the project's organization",
        ],
      });
    if (problems.length > 0) throw escalationValidation(problems);
    return merged.fields;
  }
}
