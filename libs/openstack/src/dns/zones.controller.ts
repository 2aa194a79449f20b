import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiUpstreamData, CloudRoute } from '@platform/cloud-core';
import { CurrentPrincipal, type Principal } from '@platform/identity';
import { CreateZoneBody } from './dns.dto.js';
import { DUPLICATE, VERIFICATION_FAILED, ZONE_NOT_FOUND } from './dns-errors.js';
import { RESOLVER_UNAVAILABLE, ZONE, ZONE_REQUIRED } from './dns.openapi.js';
import { ZonesService } from './zones.service.js';

const zone = (description: string, status: 200 | 202 = 200) =>
  ApiUpstreamData({ status, properties: ZONE, required: ZONE_REQUIRED, description });

@ApiTags('dns: zones')
@Controller('dns')
export class ZonesController {
  constructor(private readonly zones: ZonesService) {}

  @Get('zones')
  @ApiUpstreamData({
    list: true,
    properties: ZONE,
    required: ZONE_REQUIRED,
    description: "the project's zones (Designate), each with its domain verification",
  })
  @CloudRoute({ permission: 'dns:read' })
  list(@CurrentPrincipal() principal: Principal) {
    return this.zones.list(principal);
  }

  @Get('zones/:id')
  @zone('the zone as Designate shows it, with its domain verification; poll it after a create')
  @CloudRoute({ permission: 'dns:read', errors: [ZONE_NOT_FOUND] })
  show(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.zones.show(principal, id);
  }

  @Post('zones')
  @HttpCode(202)
  @zone('the new zone as it stands (`PENDING`); poll it', 202)
  @CloudRoute({
    permission: 'dns:create',
    capability: { feature: 'dns', kind: 'zone' },
    errors: [DUPLICATE],
  })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateZoneBody) {
    return this.zones.create(principal, body);
  }

  @Delete('zones/:id')
  @HttpCode(202)
  @zone('the zone as it stands (`action: DELETE`) while Designate removes it', 202)
  @CloudRoute({ permission: 'dns:delete', errors: [ZONE_NOT_FOUND] })
  delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.zones.delete(principal, id);
  }

  @Post('domains/:id/verify')
  @HttpCode(200)
  @zone('the zone (its id is the domain id), now `verified: true` with `verified_at`')
  @CloudRoute({
    permission: 'dns:update',
    capability: { feature: 'dns', kind: 'domain_verification' },
    errors: [ZONE_NOT_FOUND, VERIFICATION_FAILED, RESOLVER_UNAVAILABLE],
  })
  verify(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.zones.verify(principal, id);
  }
}
