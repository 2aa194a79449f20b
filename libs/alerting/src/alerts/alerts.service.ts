import type { AlertEventResponseDto } from '../alerting.openapi.js';
import { Injectable } from '@nestjs/common';
import { ListResult, MetricsService } from '@platform/core';
import type { Counter } from 'prom-client';
import { alertingNotFound } from '../alerting-exception.js';
import { type AlertListFilter } from './alert-list-query.js';
import type { Alert } from './alerts.openapi.js';
import { type AlertEventRow, AlertsRepository } from './alerts.repository.js';

const SEARCH_TOTALS = 'alert_search_totals_total';

export const ALERT_EVENTS_DEFAULT_LIMIT = 100;
export const ALERT_EVENTS_MAX_LIMIT = 500;

const eventView = (e: AlertEventRow): AlertEventResponseDto => ({
  id: e.id,
  alert_id: e.alert_id,
  kind: e.kind,
  details: e.details,
  created_at: e.created_at,
});

@Injectable()
export class AlertsService {
  private readonly searchTotals: Counter<'source'>;

  constructor(
    private readonly alerts: AlertsRepository,
    metrics: MetricsService,
  ) {
    this.searchTotals = metrics.counter(
      SEARCH_TOTALS,
      'Totals of alert searches by how they were had: kept, memory, forward (a kept total brought forward) or counted',
      ['source'] as const,
    );
  }

  async list(projectId: string, filter: AlertListFilter): Promise<ListResult<Alert>> {
    const page = await this.alerts.list(projectId, filter);
    if (page.source !== null) this.searchTotals.inc({ source: page.source });
    return new ListResult(page.items, page.total);
  }

  async show(projectId: string, id: string): Promise<Alert> {
    return (await this.alerts.findView(projectId, id)) ?? notFound();
  }

  async events(projectId: string, alertId: string, paging: { limit: number; offset: number }) {
    if (!(await this.alerts.exists(projectId, alertId))) notFound();
    const page = await this.alerts.events(projectId, alertId, paging.limit, paging.offset);
    return new ListResult(page.items.map(eventView), page.total);
  }
}

function notFound(): never {
  throw alertingNotFound('Alert');
}
