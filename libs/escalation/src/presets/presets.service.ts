import { Injectable } from '@nestjs/common';
import { AlertRoutesRepository, PRESET_BUNDLE_WINDOW_SECONDS } from '@platform/alerting';
import { Clock } from '@platform/core';
import { ChainsRepository } from '../chains/chains.repository.js';
import { EscalationErrorCode, EscalationException } from '../escalation-exception.js';
import { PRESET_CHAIN, PRESET_ROUTES, PRESET_STEPS } from './alert-presets.js';
import { type ConfigurationCounts, PresetsRepository } from './presets.repository.js';

/**
 * Seeds a project that has no alert routing yet with working defaults (see alert-presets.ts):
 * one escalation chain and two routes, all in one transaction. A project with any route or
 * any chain is refused with 422 `presets_already_configured` and nothing is written; there is
 * no merge. Concurrent requests for one project are serialized, so at most one seeds.
 */
@Injectable()
export class PresetsService {
  constructor(
    private readonly clock: Clock,
    private readonly presets: PresetsRepository,
    private readonly chains: ChainsRepository,
    private readonly routes: AlertRoutesRepository,
  ) {}

  seed(projectId: string): Promise<ConfigurationCounts> {
    return this.presets.transaction(async (manager) => {
      await this.presets.lockProject(manager, projectId);
      const existing = await this.presets.counts(manager, projectId);
      if (existing.routes > 0 || existing.escalation_chains > 0)
        throw new EscalationException(
          EscalationErrorCode.PresetsAlreadyConfigured,
          'Presets can only be seeded into a project without alert routes and escalation chains',
          { details: existing },
        );
      const at = this.clock.now();
      const chainId = await this.chains.insertChain(manager, projectId, PRESET_CHAIN, at);
      for (const [position, step] of PRESET_STEPS.entries())
        await this.chains.insertStep(manager, chainId, position, step, at);
      for (const route of PRESET_ROUTES)
        await this.routes.insert(
          manager,
          projectId,
          {
            name: route.name,
            priority: route.priority,
            matchers: [],
            escalation_chain_id: route.escalates ? chainId : null,
            in_app_target_type: 'org_admins',
            in_app_target_roster_id: null,
            in_app_target_member_id: null,
            in_app_target_role: null,
            min_severity_for_notification: route.min_severity_for_notification,
            cooldown_seconds: null,
            bundle_window_seconds: PRESET_BUNDLE_WINDOW_SECONDS,
            enabled: true,
          },
          at,
        );
      return this.presets.counts(manager, projectId);
    });
  }
}
