import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiErrors, Public } from '@platform/core';
import { HeartbeatPingsService } from './heartbeat-pings.service.js';

const PING_ERRORS = [
  [404, 'not_found', 'no heartbeat has this ping key (unknown, deleted, or its URL was rotated)'],
  [403, 'alerts_capability_not_enabled', "the heartbeat's project lacks the alerts capability"],
  [429, 'rate_limited', 'more than 60 pings of the heartbeat within a minute; see Retry-After'],
] as const;

const PING_DOC =
  "Public: the key in the URL is the credential (the heartbeat's ping_url). The heartbeat is up until interval plus grace from now; if it was down, its alert resolves. POST and GET do the same, for senders that can only do one.";

/** The secret ping URL of a heartbeat, `/heartbeat_pings/{ping_key}`; no credentials. */
@ApiTags('alerts')
@ApiParam({ name: 'ping_key', type: String, description: 'the last segment of the ping_url' })
@Controller('heartbeat_pings')
export class HeartbeatPingsController {
  constructor(private readonly pings: HeartbeatPingsService) {}

  @Post(':ping_key')
  @HttpCode(204)
  @ApiOperation({ summary: 'Ping a heartbeat', description: PING_DOC })
  @ApiNoContentResponse({ description: 'pinged' })
  @ApiErrors(...PING_ERRORS)
  @Public()
  async post(@Param('ping_key') key: string): Promise<void> {
    await this.pings.ping(key);
  }

  @Get(':ping_key')
  @HttpCode(204)
  @ApiOperation({ summary: 'Ping a heartbeat (GET)', description: PING_DOC })
  @ApiNoContentResponse({ description: 'pinged' })
  @ApiErrors(...PING_ERRORS)
  @Public()
  async get(@Param('ping_key') key: string): Promise<void> {
    await this.pings.ping(key);
  }
}
