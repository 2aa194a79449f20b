import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import { ApiData, ApiProjectErrors, ApiProjectParam, notFound } from '@platform/oncall';
import { AlertInsights } from './insights.openapi.js';
import { INSIGHTS_DAYS, parseInsightsDays } from './insights-window.js';
import { InsightsService } from './insights.service.js';

/**
 * `GET /projects/{project_id}/alerts/insights`, the `alerts:insights` custom action at level
 * read (members: alerts read; tokens: `alerts:read`). Its path is a literal segment where the
 * alerts controller has `alerts/:id`, so the module holding it is registered before alerting
 * (see the API module).
 */
@ApiTags('alerts', 'escalation')
@ApiProjectParam()
@Controller('projects/:project_id/alerts/insights')
@RequiresCapability('alerts')
export class InsightsController {
  constructor(private readonly insights: InsightsService) {}

  @Get()
  @ApiOperation({
    summary: 'Alert insights',
    description:
      'Aggregates of the last `days` days (the window starts days x 24 h before now): alerts by starts_at with the acknowledged share, MTTA median and p90, daily volume per severity (UTC days), the ten alertnames with the most fired and refired events, escalations opened with how many were exhausted or repeated, acknowledgements per channel and the on-call load per account from the escalation ledger. firing_now counts every firing alert, whatever its age. Members: alerts read; tokens: alerts:read.',
  })
  @ApiQuery({
    name: 'days',
    required: false,
    enum: INSIGHTS_DAYS.map(String),
    description: 'the window in days: 7 (default), 30 or 90',
  })
  @ApiData(AlertInsights, { description: 'the insights of the window' })
  @ApiProjectErrors(notFound(), [422, 'invalid_days', 'days is not 7, 30 or 90'])
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: 'alerts' })
  show(@CurrentPrincipal() principal: Principal, @Query('days') days?: unknown) {
    return this.insights.compute(principal.projectId!, parseInsightsDays(days));
  }
}
