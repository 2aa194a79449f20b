import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { ApiUpstreamData, CloudRoute, UPSTREAM_CONFLICT } from '@platform/cloud-core';
import { CurrentPrincipal, type Principal } from '@platform/identity';
import { notFoundDoc, ROUTER, ROUTER_INTERFACE } from './network.openapi.js';
import { ProjectNeutron, ROUTERS } from './neutron.js';
import { RouterInterfacesService } from './router-interfaces.service.js';
import { AddRouterInterfaceBody, CreateRouterBody, UpdateRouterBody } from './routers.dto.js';

const ROUTER_404 = notFoundDoc('router');
const CAPABILITY = { feature: 'openstack', kind: 'router' } as const;

@ApiTags('cloud: routers')
@Controller('cloud/routers')
export class RoutersController {
  constructor(
    private readonly neutron: ProjectNeutron,
    private readonly interfaces: RouterInterfacesService,
  ) {}

  @Get()
  @ApiUpstreamData({ list: true, properties: ROUTER, description: "the project's routers" })
  @CloudRoute({ permission: 'network:read' })
  list(@CurrentPrincipal() principal: Principal) {
    return this.neutron.list(principal, ROUTERS);
  }

  @Get(':id')
  @ApiUpstreamData({ properties: ROUTER, description: 'the router' })
  @CloudRoute({ permission: 'network:read', errors: [ROUTER_404] })
  show(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.neutron.show(principal, ROUTERS, id);
  }

  @Post()
  @ApiUpstreamData({
    status: 201,
    properties: ROUTER,
    description: 'the new router, with its gateway address when it has an external gateway',
  })
  @CloudRoute({
    permission: 'network:create',
    capability: CAPABILITY,
    errors: [[404, 'not_found', "no network has the gateway's `network_id`"], UPSTREAM_CONFLICT],
  })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateRouterBody) {
    return this.neutron.create(principal, ROUTERS, body);
  }

  @Patch(':id')
  @ApiUpstreamData({ properties: ROUTER, description: 'the changed router' })
  @CloudRoute({
    permission: 'network:update',
    errors: [
      ROUTER_404,
      UPSTREAM_CONFLICT,
      [409, 'conflict', 'floating IPs still need the gateway being removed or changed'],
    ],
  })
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: UpdateRouterBody,
  ) {
    return this.neutron.update(principal, ROUTERS, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the router and its gateway are deleted' })
  @CloudRoute({
    permission: 'network:delete',
    errors: [ROUTER_404, UPSTREAM_CONFLICT, [409, 'conflict', 'the router still has interfaces']],
  })
  delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.neutron.delete(principal, ROUTERS, id);
  }

  @Post(':id/interfaces')
  @ApiUpstreamData({
    status: 201,
    properties: ROUTER_INTERFACE,
    required: ['id', 'port_id', 'subnet_id'],
    description: 'the new interface: the router (`id`), its port and subnet',
  })
  @CloudRoute({
    permission: 'network:create',
    capability: CAPABILITY,
    errors: [
      [404, 'not_found', 'no router, subnet or port of the project has the id'],
      UPSTREAM_CONFLICT,
      [409, 'conflict', 'the port is attached to something already'],
    ],
  })
  addInterface(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: AddRouterInterfaceBody,
  ) {
    return this.interfaces.add(principal, id, body);
  }

  @Delete(':id/interfaces/:port_id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the interface and its port are removed' })
  @CloudRoute({
    permission: 'network:delete',
    errors: [
      [404, 'not_found', 'no router of the project has this id, or no interface with this port'],
      UPSTREAM_CONFLICT,
      [409, 'conflict', 'floating IPs reach their ports through this interface'],
    ],
  })
  removeInterface(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('port_id') portId: string,
  ) {
    return this.interfaces.remove(principal, id, portId);
  }
}
