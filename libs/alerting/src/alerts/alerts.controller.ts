import { Controller, Get, Query } from '@nestjs/common';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { ApiData, IdParam } from '@platform/core';
import { ApiAlertingErrors, alertingNotFoundDoc } from '../alerting-errors.openapi.js';
import { AlertEventResponseDto } from '../alerting.openapi.js';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import {
  ALERT_LIST_DEFAULT_LIMIT,
  ALERT_LIST_MAX_LIMIT,
  parseAlertListQuery,
  parsePaging,
} from './alert-list-query.js';
import {
  ALERT_EVENTS_DEFAULT_LIMIT,
  ALERT_EVENTS_MAX_LIMIT,
  AlertsService,
} from './alerts.service.js';
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
  @ApiQuery({ name: 'status', required: false, enum: ['firing', 'resolved'] })
  @ApiQuery({ name: 'acknowledged', required: false, enum: ['true', 'false'] })
  @ApiQuery({
    name: 'limit',
    required: false,
    description: `default ${ALERT_LIST_DEFAULT_LIMIT}, clamped to 1..${ALERT_LIST_MAX_LIMIT}`,
  })
  @ApiQuery({ name: 'offset', required: false, description: 'default 0, floored at 0' })
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
 * The read-only timeline of an alert (scope resource `alert_events`), oldest first. Paged like
 * other lists: `limit` default 100 clamped to 1..500, `offset` floored at 0, with
 * `metadata.total`.
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
  @ApiAlertingErrors(alertingNotFoundDoc('no alert of the project has this id'))
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: 'alert_events' })
  @ApiQuery({ name: 'limit', required: false })
  @ApiQuery({ name: 'offset', required: false })
  list(
    @CurrentPrincipal() principal: Principal,
    @IdParam('alert_id') alertId: string,
    @Query('limit') limit?: unknown,
    @Query('offset') offset?: unknown,
  ) {
    return this.alerts.events(
      principal.projectId!,
      alertId,
      parsePaging({ limit, offset }, ALERT_EVENTS_DEFAULT_LIMIT, ALERT_EVENTS_MAX_LIMIT),
    );
  }
}
