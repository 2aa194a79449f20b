import { Controller, Get, Param, Post, StreamableFile } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiProperty, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { ApiErrors, IdParam as Id, Public } from '@platform/core';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import {
  ApiData,
  ApiIdParam,
  ApiProjectParam,
  ApiProjectWriteErrors,
  notFound,
} from '../alerts-api.openapi.js';
import { CalendarFeedsService } from './calendar-feeds.service.js';

export class OnCallCalendarFeed {
  @ApiProperty({
    format: 'uri',
    description:
      'the secret feed URL (text/calendar, no credentials); the previous URL of the roster answers 404 from now on',
  })
  url!: string;
}

/**
 * `POST /projects/{project_id}/on_call_rosters/{id}/calendar_feed`: a custom action on the
 * `on_call_rosters` resource, so manage on a token and the alerts delete permission of a
 * member (the URL shows the roster's schedule to whoever holds it).
 */
@ApiTags('escalation')
@ApiProjectParam()
@Controller('projects/:project_id/on_call_rosters')
@RequiresCapability('alerts')
export class RosterCalendarFeedController {
  constructor(private readonly feeds: CalendarFeedsService) {}

  @Post(':id/calendar_feed')
  @ApiOperation({
    summary: "Create the roster's calendar feed URL",
    description:
      "A new secret URL answering the roster's shifts as an iCalendar feed, for calendar apps to subscribe to; each call replaces the previous URL, which then answers 404. Members: alerts delete; tokens: on_call_rosters:manage.",
  })
  @ApiIdParam('id', 'the roster')
  @ApiData(OnCallCalendarFeed, { status: 201, description: 'the new feed URL' })
  @ApiProjectWriteErrors(notFound('no on-call roster of this project has this id'))
  @Authenticated({
    scope: 'project',
    permission: 'alerts:delete',
    scopeResource: 'on_call_rosters',
  })
  create(@CurrentPrincipal() principal: Principal, @Id('id') id: string) {
    return this.feeds.create(principal.projectId!, id);
  }
}

/** The feed itself, `/calendar_feeds/{feed_key}`; no credentials, the key is one. */
@ApiTags('escalation')
@ApiParam({ name: 'feed_key', type: String, description: 'the last segment of the feed URL' })
@Controller('calendar_feeds')
export class CalendarFeedsController {
  constructor(private readonly feeds: CalendarFeedsService) {}

  @Get(':feed_key')
  @ApiOperation({
    summary: "An on-call roster's shifts as an iCalendar feed",
    description:
      'Public: the key in the URL is the credential. RFC 5545 text: one VEVENT per shift running now or starting within 90 days (rotation turns with overrides cut in, as GET .../shifts computes them), the member in SUMMARY, DTSTART and DTEND in UTC, a UID that stays the same for the same shift.',
  })
  @ApiOkResponse({
    description: 'the feed',
    content: { 'text/calendar': { schema: { type: 'string' } } },
  })
  @ApiErrors(
    [
      404,
      'not_found',
      'no roster has this feed key (unknown, deleted, or replaced by a newer feed)',
    ],
    [403, 'alerts_capability_not_enabled', "the roster's project lacks the alerts capability"],
  )
  @Public()
  async show(@Param('feed_key') key: string): Promise<StreamableFile> {
    const text = await this.feeds.render(key);
    return new StreamableFile(Buffer.from(text), {
      type: 'text/calendar; charset=utf-8',
      disposition: 'inline; filename="on-call.ics"',
    });
  }
}
