import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { ApiUpstreamData, CloudRoute, UPSTREAM_CONFLICT } from '@platform/cloud-core';
import { CurrentPrincipal, type Principal } from '@platform/identity';
import { NETWORK, notFoundDoc, PORT, SUBNET } from './network.openapi.js';
import { CreateNetworkBody, CreateSubnetBody } from './networks.dto.js';
import { NETWORKS, PORTS, ProjectNeutron, SUBNETS } from './neutron.js';

const NETWORK_404 = notFoundDoc('network (nor the shared external one)');
const SUBNET_404 = notFoundDoc('subnet');
const PORT_404 = notFoundDoc('port');
const CAPABILITY = { feature: 'openstack', kind: 'network' } as const;

/** Networks, their subnets, and the ports on them (read only: servers and routers make ports). */
@ApiTags('cloud: networks')
@Controller('cloud')
export class NetworksController {
  constructor(private readonly neutron: ProjectNeutron) {}

  @Get('networks')
  @ApiUpstreamData({
    list: true,
    properties: NETWORK,
    description: "the project's networks and the external ones (`router:external`) it may use",
  })
  @CloudRoute({ permission: 'network:read' })
  listNetworks(@CurrentPrincipal() principal: Principal) {
    return this.neutron.list(principal, NETWORKS);
  }

  @Get('networks/:id')
  @ApiUpstreamData({ properties: NETWORK, description: 'the network' })
  @CloudRoute({ permission: 'network:read', errors: [NETWORK_404] })
  showNetwork(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.neutron.show(principal, NETWORKS, id);
  }

  @Post('networks')
  @ApiUpstreamData({ status: 201, properties: NETWORK, description: 'the new network' })
  @CloudRoute({ permission: 'network:create', capability: CAPABILITY, errors: [UPSTREAM_CONFLICT] })
  createNetwork(@CurrentPrincipal() principal: Principal, @Body() body: CreateNetworkBody) {
    return this.neutron.create(principal, NETWORKS, body);
  }

  @Delete('networks/:id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the network is deleted' })
  @CloudRoute({
    permission: 'network:delete',
    errors: [NETWORK_404, UPSTREAM_CONFLICT, [409, 'conflict', 'subnets or ports remain on it']],
  })
  deleteNetwork(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.neutron.delete(principal, NETWORKS, id);
  }

  @Get('subnets')
  @ApiUpstreamData({ list: true, properties: SUBNET, description: "the project's subnets" })
  @CloudRoute({ permission: 'network:read' })
  listSubnets(@CurrentPrincipal() principal: Principal) {
    return this.neutron.list(principal, SUBNETS);
  }

  @Get('subnets/:id')
  @ApiUpstreamData({ properties: SUBNET, description: 'the subnet' })
  @CloudRoute({ permission: 'network:read', errors: [SUBNET_404] })
  showSubnet(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.neutron.show(principal, SUBNETS, id);
  }

  @Post('subnets')
  @ApiUpstreamData({
    status: 201,
    properties: SUBNET,
    description: 'the new subnet, with its gateway and allocation pool',
  })
  @CloudRoute({
    permission: 'network:create',
    capability: CAPABILITY,
    errors: [
      [404, 'not_found', 'the project has no network with the `network_id`'],
      UPSTREAM_CONFLICT,
    ],
  })
  createSubnet(@CurrentPrincipal() principal: Principal, @Body() body: CreateSubnetBody) {
    return this.neutron.create(principal, SUBNETS, body);
  }

  @Delete('subnets/:id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the subnet is deleted' })
  @CloudRoute({
    permission: 'network:delete',
    errors: [SUBNET_404, UPSTREAM_CONFLICT, [409, 'conflict', 'ports hold addresses of it']],
  })
  deleteSubnet(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.neutron.delete(principal, SUBNETS, id);
  }

  @Get('ports')
  @ApiUpstreamData({
    list: true,
    properties: PORT,
    description: "the project's ports (servers' interfaces, router interfaces)",
  })
  @CloudRoute({ permission: 'network:read' })
  listPorts(@CurrentPrincipal() principal: Principal) {
    return this.neutron.list(principal, PORTS);
  }

  @Get('ports/:id')
  @ApiUpstreamData({ properties: PORT, description: 'the port' })
  @CloudRoute({ permission: 'network:read', errors: [PORT_404] })
  showPort(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.neutron.show(principal, PORTS, id);
  }
}
