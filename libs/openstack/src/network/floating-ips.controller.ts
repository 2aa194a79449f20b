import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { ApiUpstreamData, CloudRoute, UPSTREAM_CONFLICT } from '@platform/cloud-core';
import { CurrentPrincipal, type Principal } from '@platform/identity';
import { FLOATING_IP, notFoundDoc } from './network.openapi.js';
import { CreateFloatingIpBody } from './networks.dto.js';
import { FLOATING_IPS, ProjectNeutron } from './neutron.js';

const FLOATING_IP_404 = notFoundDoc('floating IP');

@ApiTags('cloud: floating IPs')
@Controller('cloud/floating-ips')
export class FloatingIpsController {
  constructor(private readonly neutron: ProjectNeutron) {}

  @Get()
  @ApiUpstreamData({
    list: true,
    properties: FLOATING_IP,
    description: "the project's floating IPs",
  })
  @CloudRoute({ permission: 'network:read' })
  list(@CurrentPrincipal() principal: Principal) {
    return this.neutron.list(principal, FLOATING_IPS);
  }

  @Get(':id')
  @ApiUpstreamData({ properties: FLOATING_IP, description: 'the floating IP' })
  @CloudRoute({ permission: 'network:read', errors: [FLOATING_IP_404] })
  show(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.neutron.show(principal, FLOATING_IPS, id);
  }

  @Post()
  @ApiUpstreamData({
    status: 201,
    properties: FLOATING_IP,
    description:
      'the new floating IP, allocated from the external network (`DOWN` until associated)',
  })
  @CloudRoute({
    permission: 'network:create',
    capability: { feature: 'openstack', kind: 'floating_ip' },
    errors: [
      [
        404,
        'not_found',
        'no network or port has the id, or no router of the project joins the port to the network',
      ],
      UPSTREAM_CONFLICT,
      [409, 'conflict', 'the external network has no free address'],
    ],
  })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateFloatingIpBody) {
    return this.neutron.create(principal, FLOATING_IPS, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the address is released' })
  @CloudRoute({ permission: 'network:delete', errors: [FLOATING_IP_404] })
  delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.neutron.delete(principal, FLOATING_IPS, id);
  }
}
