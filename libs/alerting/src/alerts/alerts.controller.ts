import { Controller, Get, Query } from '@nestjs/common';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { ApiData, IdParam, invalidQueryDoc } from '@platform/core';
import { ApiAlertingErrors, alertingNotFoundDoc } from '../alerting-errors.openapi.js';
import { AlertEventResponseDto } from '../alerting.openapi.js';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import { AlertEventsQuery } from './alert-events.query.js';
import {
  ALERT_LIST_DEFAULT_LIMIT,
  ALERT_LIST_MAX_LIMIT,
  parseAlertListQuery,
} from './alert-list-query.js';
import { AlertsService } from './alerts.service.js';
import { ACKNOWLEDGER_MODELS, Alert } from './alerts.openapi.js';

/**
 * Alerts of a project (scope resource `alerts`): the list and one alert. Acknowledgement
 * (`POST|DELETE .../alerts/{id}/ack`) belongs to escalation, which it halts.
 *
 * - `q` matches a substring of the fingerprint, the alertname label or the summary annotation,
 *   case-insensitively, with `%`, `_` and `\` literal and never across two fields. It looks at
 *   the first 128 characters of the fingerprint and of the alertname and the first 360 of the
 *   summary (the part the search index holds). An empty `q` searches nothing.
 * - Repeated query parameters count by their first value.
 * - The spec pins every parameter of the list as lenient: unknown `status` and `acknowledged`
 *   values apply no filter and paging is clamped, so nothing here answers 422 (unlike the
 *   timeline below and the other lists, which refuse invalid query values).
 */
@ApiTags('alerts')
@Controller('projects/:project_id/alerts')
@RequiresCapability('alerts')
export class AlertsController {
  constructor(private readonly alerts: AlertsService) {}

  @Get()
  @ApiData(Alert, {
    list: true,
    extraModels: ACKNOWLEDGER_MODELS,
    description: 'a page of alerts with `metadata.total`',
  })
  @ApiAlertingErrors(alertingNotFoundDoc())
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: 'alerts' })
  @ApiQuery({
    name: 'q',
    required: false,
    description:
      'case-insensitive substring of the fingerprint, the alertname label or the summary annotation; % _ and \\ are literal',
  })
  @ApiQuery({
    name: 'status',
    required: false,
    enum: ['firing', 'resolved'],
    description: 'other values apply no filter (never a 422)',
  })
  @ApiQuery({
    name: 'acknowledged',
    required: false,
    enum: ['true', 'false'],
    description: 'other values apply no filter (never a 422)',
  })
  @ApiQuery({
    name: 'limit',
    required: false,
    schema: { type: 'integer', default: ALERT_LIST_DEFAULT_LIMIT },
    description: `clamped to 1..${ALERT_LIST_MAX_LIMIT}; not an integer: the default (never a 422)`,
  })
  @ApiQuery({
    name: 'offset',
    required: false,
    schema: { type: 'integer', default: 0 },
    description: 'floored at 0; not an integer: 0 (never a 422)',
  })
  list(
    @CurrentPrincipal() principal: Principal,
    @Query('q') q?: unknown,
    @Query('status') status?: unknown,
    @Query('acknowledged') acknowledged?: unknown,
    @Query('limit') limit?: unknown,
    @Query('offset') offset?: unknown,
  ) {
    return this.alerts.list(
      principal.projectId!,
      parseAlertListQuery({ q, status, acknowledged, limit, offset }),
    );
  }

  @Get(':id')
  @ApiData(Alert, { extraModels: ACKNOWLEDGER_MODELS, description: 'the alert' })
  @ApiAlertingErrors(alertingNotFoundDoc('no alert of the project has this id'))
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: 'alerts' })
  show(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string) {
    return this.alerts.show(principal.projectId!, id);
  }
}

/**
 * The read-only timeline of an alert (scope resource `alert_events`), oldest first, with
 * `metadata.total`. Unlike the alert list (whose lenient paging the spec pins), `limit`
 * (default 100) outside 1..500 or a negative or non-integer `offset` answers 422
 * `validation_failed` naming the parameter.
 */
@ApiTags('alerts')
@Controller('projects/:project_id/alerts/:alert_id/alert_events')
@RequiresCapability('alerts')
export class AlertEventsController {
  constructor(private readonly alerts: AlertsService) {}

  @Get()
  @ApiData(AlertEventResponseDto, {
    list: true,
    description: 'a page of the timeline, oldest first, with `metadata.total`',
  })
  @ApiAlertingErrors(
    alertingNotFoundDoc('no alert of the project has this id'),
    invalidQueryDoc('`limit` not an integer in 1..500, or `offset` not a non-negative integer'),
  )
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: 'alert_events' })
  list(
    @CurrentPrincipal() principal: Principal,
    @IdParam('alert_id') alertId: string,
    @Query() query: AlertEventsQuery,
  ) {
    return this.alerts.events(principal.projectId!, alertId, query);
  }
}
