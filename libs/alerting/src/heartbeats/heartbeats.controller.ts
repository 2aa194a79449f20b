import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { ApiData, IdParam } from '@platform/core';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import {
  ApiAlertingErrors,
  ApiAlertingWriteErrors,
  alertingInvalidDoc,
  alertingNotFoundDoc,
} from '../alerting-errors.openapi.js';
import { CreateHeartbeatBody, UpdateHeartbeatBody } from './heartbeats.dto.js';
import { HeartbeatResponseDto } from './heartbeats.openapi.js';
import { HeartbeatsService } from './heartbeats.service.js';

const RESOURCE = 'heartbeats';
const HEARTBEAT_404 = alertingNotFoundDoc('no heartbeat of the project has this id');
const HEARTBEAT_422 = alertingInvalidDoc(
  'name (1 to 200 characters), interval_seconds (30 to 2592000), grace_seconds (0 to 604800) or labels',
);

/**
 * Heartbeat monitors of a project (scope resource `heartbeats`): something pings the secret
 * `ping_url` at least every `interval_seconds`; when interval plus grace pass without one, an
 * alert fires through the project's routes and escalations, and the next ping resolves it.
 * Reads need alerts:read, create and PATCH alerts:create and alerts:update, DELETE alerts:delete;
 * the custom action rotate_ping_url needs manage on a token and the alerts delete permission
 * of a member.
 */
@ApiTags('alerts')
@Controller('projects/:project_id/heartbeats')
@RequiresCapability('alerts')
export class HeartbeatsController {
  constructor(private readonly heartbeats: HeartbeatsService) {}

  @Get()
  @ApiData(HeartbeatResponseDto, { list: true, description: 'the heartbeats, oldest first' })
  @ApiAlertingErrors(alertingNotFoundDoc())
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  list(@CurrentPrincipal() principal: Principal) {
    return this.heartbeats.list(principal.projectId!);
  }

  @Post()
  @ApiData(HeartbeatResponseDto, { status: 201, description: 'the new heartbeat, pending' })
  @ApiAlertingWriteErrors(alertingNotFoundDoc(), HEARTBEAT_422)
  @Authenticated({ scope: 'project', permission: 'alerts:create', scopeResource: RESOURCE })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateHeartbeatBody) {
    return this.heartbeats.create(principal.projectId!, body);
  }

  @Get(':id')
  @ApiData(HeartbeatResponseDto, { description: 'the heartbeat' })
  @ApiAlertingErrors(HEARTBEAT_404)
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  show(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string) {
    return this.heartbeats.show(principal.projectId!, id);
  }

  @Patch(':id')
  @ApiData(HeartbeatResponseDto, { description: 'the changed heartbeat' })
  @ApiAlertingWriteErrors(HEARTBEAT_404, HEARTBEAT_422)
  @Authenticated({ scope: 'project', permission: 'alerts:update', scopeResource: RESOURCE })
  update(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id') id: string,
    @Body() body: UpdateHeartbeatBody,
  ) {
    return this.heartbeats.update(principal.projectId!, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the heartbeat is deleted; its firing alert resolves' })
  @ApiAlertingWriteErrors(HEARTBEAT_404)
  @Authenticated({ scope: 'project', permission: 'alerts:delete', scopeResource: RESOURCE })
  async delete(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string): Promise<void> {
    await this.heartbeats.delete(principal.projectId!, id);
  }

  @Post(':id/rotate_ping_url')
  @HttpCode(200)
  @ApiData(HeartbeatResponseDto, { description: 'the heartbeat with its new ping_url' })
  @ApiAlertingWriteErrors(HEARTBEAT_404)
  @Authenticated({ scope: 'project', permission: 'alerts:delete', scopeResource: RESOURCE })
  rotatePingUrl(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string) {
    return this.heartbeats.rotatePingUrl(principal.projectId!, id);
  }
}
