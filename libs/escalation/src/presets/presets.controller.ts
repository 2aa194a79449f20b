import { Controller, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import { ApiData, ApiProjectParam, ApiProjectWriteErrors, notFound } from '@platform/oncall';
import { SeededPresets } from './presets.openapi.js';
import { PresetsService } from './presets.service.js';

/**
 * `POST /projects/{project_id}/alerts/seed_presets`, the `alerts:seed_presets` custom action:
 * level manage for tokens (`alerts:manage`), and the alerts delete permission for members,
 * the level that creates chains and routes.
 */
@ApiTags('alerts', 'escalation')
@ApiProjectParam()
@Controller('projects/:project_id/alerts/seed_presets')
@RequiresCapability('alerts')
export class PresetsController {
  constructor(private readonly presets: PresetsService) {}

  @Post()
  @ApiOperation({
    summary: 'Seed default alert routing',
    description:
      'For a project without alert routes and escalation chains: creates the chain "Page the organization admins" (step 1 at once: org admins in-app and by e-mail; step 2 five minutes later: org admins by phone; 2 repeats; re-escalation 30 minutes after an acknowledgement while the alert fires), the route "Critical alerts" (priority 100, critical only, opens that chain, notifies the org admins in-app) and the catch-all route "All other alerts" (priority 1000, any severity, notifies the org admins in-app). Answers the counts afterwards. A project with any route or chain is refused and nothing is written. Members: alerts delete; tokens: alerts:manage.',
  })
  @ApiData(SeededPresets, { status: 201, description: 'the counts after seeding' })
  @ApiProjectWriteErrors(notFound(), [
    422,
    'presets_already_configured',
    'the project already has an alert route or an escalation chain; `details` carries their counts and nothing is written',
  ])
  @Authenticated({ scope: 'project', permission: 'alerts:delete', scopeResource: 'alerts' })
  seed(@CurrentPrincipal() principal: Principal) {
    return this.presets.seed(principal.projectId!);
  }
}
