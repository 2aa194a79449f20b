import { Inject, Injectable } from '@nestjs/common';
import { CapabilitiesService, capabilityNotEnabled, isEnabled } from '@platform/capabilities';
import { APP_CONFIG, type AppConfig, Clock } from '@platform/core';
import { capabilityKey, capabilityKeyId, isCapabilityKey, randomSecret } from '@platform/identity';
import { onCallNotFound } from '../oncall-exception.js';
import { RostersService } from '../rosters/rosters.service.js';
import { CALENDAR_FEED_DAYS, rosterCalendar } from './roster-calendar.js';
import { CalendarFeedsRepository } from './calendar-feeds.repository.js';

const PURPOSE = 'calendar_feed';
const DAY_MS = 86_400_000;
/**
 * Shifts are computed from this far back, so the shift running now shows whole (with the same
 * start, and so the same UID, on every fetch) unless it began longer ago than this.
 */
const LOOKBACK_MS = 31 * DAY_MS;

/**
 * Calendar feeds of on-call rosters. A feed URL is `{PUBLIC_URL}/calendar_feeds/{roster
 * id}.{HMAC-SHA256(SECRET_KEY, …id:nonce)}`: nothing of it is stored but the nonce, which each
 * new feed replaces, so only the latest URL works. Fetching it needs no credentials; it
 * answers the shifts running now or starting within the next 90 days.
 */
@Injectable()
export class CalendarFeedsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly feeds: CalendarFeedsRepository,
    private readonly rosters: RostersService,
    private readonly capabilities: CapabilitiesService,
  ) {}

  /** A new feed URL for the roster; the previous one answers 404 from now on. */
  async create(projectId: string, rosterId: string): Promise<{ url: string }> {
    const nonce = randomSecret('', 16);
    if (!(await this.feeds.replaceNonce(projectId, rosterId, nonce)))
      throw onCallNotFound('On-call roster');
    const key = capabilityKey(this.config.secretKey, PURPOSE, rosterId, nonce);
    return { url: `${this.config.publicUrl.replace(/\/+$/, '')}/calendar_feeds/${key}` };
  }

  /**
   * The feed's iCalendar text. An unknown roster, a roster without a feed and a key that is
   * not the current one all answer 404 `not_found`; a project without the alerts capability
   * 403 `alerts_capability_not_enabled`.
   */
  async render(key: string): Promise<string> {
    const id = capabilityKeyId(key);
    const roster = id ? await this.feeds.find(id) : null;
    const nonce = roster?.calendar_feed_nonce;
    if (
      !roster ||
      !nonce ||
      !isCapabilityKey(this.config.secretKey, PURPOSE, roster.id, nonce, key)
    )
      throw onCallNotFound('Calendar feed');
    if (!isEnabled(await this.capabilities.available(roster.project_id, 'alerts')))
      throw capabilityNotEnabled('alerts');
    const now = this.clock.now();
    const until = new Date(now.getTime() + CALENDAR_FEED_DAYS * DAY_MS);
    const shifts = await this.rosters.shiftsBetween(
      roster.project_id,
      roster.id,
      new Date(now.getTime() - LOOKBACK_MS),
      until,
    );
    return rosterCalendar({
      rosterId: roster.id,
      rosterName: roster.name,
      shifts: shifts.filter(({ segment }) => segment.endsAt.getTime() > now.getTime()),
      now,
    });
  }
}
