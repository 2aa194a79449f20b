import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { type InsightsDays, insightsWindow, share } from './insights-window.js';
import { InsightsRepository } from './insights.repository.js';

/** Seconds to the millisecond, so interpolated percentiles carry no binary noise. */
const seconds = (value: number) => Math.round(value * 1000) / 1000;

/**
 * Aggregate insights of a project over the last `days` days (the window starts `days` x 24 h
 * before now, on the injected clock, and has no upper end). Rules beyond the spec, as built:
 * - An alert acknowledged before its current firing began (an acknowledgement of an earlier
 *   firing that was kept) counts as acknowledged at once: its MTTA sample is 0, never negative.
 * - MTTA percentiles are rounded to the millisecond.
 * - `top_noisy` ties are ordered by alertname (byte order); events count in the window by when
 *   they were recorded, under the alert's current alertname label (renaming an alert moves its
 *   counted events to the new name).
 * - `escalations.acks_by_channel` and `on_call_load` count escalation ledger rows written in the
 *   window (history: un-acknowledging removes no ledger row); an SMS reply is a phone
 *   acknowledgement. `on_call_load` lists accounts with at least one row, busiest first
 *   (notified + called + acked), then by account id; external phone contacts are not accounts
 *   and are not listed.
 * Whole UTC days of the window are read from per-day rollups that triggers keep in the writers'
 * transactions, the partial first day from the raw rows (see the insights-rollups migration);
 * figures are exact, never sampled or estimated. Timeline events removed by the retention prune
 * are older than every window. The queries run at once, each in its own snapshot.
 */
@Injectable()
export class InsightsService {
  constructor(
    private readonly clock: Clock,
    private readonly insights: InsightsRepository,
  ) {}

  async compute(projectId: string, days: InsightsDays) {
    const window = insightsWindow(this.clock.now(), days);
    const [alerts, mtta, noisy, escalations, ledger] = await Promise.all([
      this.insights.alerts(projectId, window),
      this.insights.mtta(projectId, window),
      this.insights.topNoisy(projectId, window),
      this.insights.escalations(projectId, window),
      this.insights.ledger(projectId, window),
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
        median_seconds: mtta ? seconds(mtta[0]) : null,
        p90_seconds: mtta ? seconds(mtta[1]) : null,
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
