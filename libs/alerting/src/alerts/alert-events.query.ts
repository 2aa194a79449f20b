import { PagingQuery } from '@platform/core';
import { ALERT_EVENTS_DEFAULT_LIMIT, ALERT_EVENTS_MAX_LIMIT } from './alerts.service.js';

/** GET .../alert_events: `limit` 1..500 (default 100) and `offset`; anything else answers 422. */
export class AlertEventsQuery extends PagingQuery({
  defaultLimit: ALERT_EVENTS_DEFAULT_LIMIT,
  maxLimit: ALERT_EVENTS_MAX_LIMIT,
}) {}
