import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { type InsightsDays, share } from './insights-window.js';
import { InsightsRepository } from './insights.repository.js';

const DAY_MS = 86_400_000;

/** Seconds to the millisecond, so interpolated percentiles carry no binary noise. */
const seconds = (value: number) => Math.round(value * 1000) / 1000;

/**
 * Aggregate insights of a project over the last `days` days (the window starts `days` x 24 h
 * before now, on the injected clock, and has no upper end). Rules beyond the spec, as built:
 * - An alert acknowledged before its current firing began (an acknowledgement of an earlier
 *   firing that was kept) counts as acknowledged at once: its MTTA sample is 0, never negative.
 * - MTTA percentiles are rounded to the millisecond.
 * - `top_noisy` ties are ordered by alertname (byte order); events count in the window by when
 *   they were recorded, under the alert's current alertname label.
 * - `escalations.acks_by_channel` and `on_call_load` count escalation ledger rows written in the
 *   window (history: un-acknowledging removes no ledger row); an SMS reply is a phone
 *   acknowledgement. `on_call_load` lists accounts with at least one row, busiest first
 *   (notified + called + acked), then by account id; external phone contacts are not accounts
 *   and are not listed.
 * The queries run at once, each in its own snapshot.
 */
@Injectable()
export class InsightsService {
  constructor(
    private readonly clock: Clock,
    private readonly insights: InsightsRepository,
  ) {}

  async compute(projectId: string, days: InsightsDays) {
    const since = new Date(this.clock.now().getTime() - days * DAY_MS);
    const [alerts, noisy, escalations, ledger] = await Promise.all([
      this.insights.alerts(projectId, since),
      this.insights.topNoisy(projectId, since),
      this.insights.escalations(projectId, since),
      this.insights.ledger(projectId, since),
    ]);
    const byDay = new Map<string, Record<string, number>>();
    for (const row of alerts.volume) {
      const severities = byDay.get(row.date) ?? {};
      severities[row.severity] = row.alerts;
      byDay.set(row.date, severities);
    }
    return {
      totals: {
        alerts: alerts.alerts,
        firing_now: alerts.firing_now,
        acked_share: share(alerts.acked, alerts.alerts),
      },
      mtta: {
        median_seconds: alerts.mtta ? seconds(alerts.mtta[0]) : null,
        p90_seconds: alerts.mtta ? seconds(alerts.mtta[1]) : null,
      },
      volume: [...byDay].map(([date, severities]) => ({ date, severities })),
      top_noisy: noisy,
      escalations: {
        opened: escalations.opened,
        exhausted: escalations.exhausted,
        repeat_rate: share(escalations.repeated, escalations.opened),
        acks_by_channel: ledger.acks,
      },
      on_call_load: ledger.load,
    };
  }
}
