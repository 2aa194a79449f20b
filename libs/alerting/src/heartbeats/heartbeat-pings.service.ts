import { Injectable } from '@nestjs/common';
import { CapabilitiesService, capabilityNotEnabled, isEnabled } from '@platform/capabilities';
import { Clock } from '@platform/core';
import { RATE_LIMITS, RateLimiter } from '@platform/rate-limits';
import { alertingNotFound } from '../alerting-exception.js';
import { AlertIngestService } from '../ingest/alert-ingest.service.js';
import { HeartbeatPingUrls } from './heartbeat-ping-urls.js';
import { HeartbeatsRepository } from './heartbeats.repository.js';
import { HeartbeatsService } from './heartbeats.service.js';

/**
 * A ping through a heartbeat's secret URL, checked in this order: an unknown heartbeat, a key
 * that is not its current one (rotated, forged) → 404 `not_found`, the same answer for both;
 * its project without the alerts capability → 403 `alerts_capability_not_enabled`; more than
 * 60 pings of the heartbeat in a minute → 429 `rate_limited`. Then the heartbeat is up until
 * interval plus grace from now, and, if it was down, its alert resolves (dispatched after
 * the commit, like an ingested resolution).
 */
@Injectable()
export class HeartbeatPingsService {
  constructor(
    private readonly clock: Clock,
    private readonly heartbeats: HeartbeatsRepository,
    private readonly pingUrls: HeartbeatPingUrls,
    private readonly alerts: HeartbeatsService,
    private readonly ingestion: AlertIngestService,
    private readonly capabilities: CapabilitiesService,
    private readonly limiter: RateLimiter,
  ) {}

  async ping(key: string): Promise<void> {
    const id = this.pingUrls.idOf(key);
    const heartbeat = id ? await this.heartbeats.findById(id) : null;
    if (!heartbeat || !this.pingUrls.matches(heartbeat, key)) throw alertingNotFound('Heartbeat');
    if (!isEnabled(await this.capabilities.available(heartbeat.project_id, 'alerts')))
      throw capabilityNotEnabled('alerts');
    await this.limiter.take({ rule: RATE_LIMITS.heartbeatPings, key: heartbeat.id });
    const now = this.clock.now();
    const changes = await this.heartbeats.transaction(async (manager) => {
      const pinged = await this.heartbeats.recordPing(
        manager,
        heartbeat.id,
        heartbeat.ping_nonce,
        now,
      );
      // Rotated (or deleted) since it was read.
      if (!pinged) throw alertingNotFound('Heartbeat');
      if (pinged.previous !== 'down') return null;
      return this.alerts.ingest(manager, pinged.heartbeat, 'resolved', now);
    });
    if (changes) await this.ingestion.dispatch(heartbeat.project_id, changes);
  }
}
