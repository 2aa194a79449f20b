import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  ApiUpstreamData,
  CloudRoute,
  NULLABLE_STRING,
  OBJECT,
  OBJECT_LIST,
  STRING,
  INTEGER,
} from '@platform/cloud-core';
import { CurrentPrincipal, type Principal } from '@platform/identity';
import { CreateServerBody } from './servers.dto.js';
import { ServersService } from './servers.service.js';

const SERVER = {
  id: STRING,
  name: STRING,
  status: { type: 'string', description: 'BUILD, ACTIVE, ERROR, SHUTOFF, ...' },
  flavor: OBJECT,
  image: { description: 'the image object, or an empty string for volume-booted servers' },
  addresses: OBJECT,
  key_name: NULLABLE_STRING,
  security_groups: OBJECT_LIST,
  created: STRING,
};
const IMAGE = {
  id: STRING,
  name: STRING,
  status: STRING,
  size: { type: 'integer', nullable: true },
};
const FLAVOR = { id: STRING, name: STRING, vcpus: INTEGER, ram: INTEGER, disk: INTEGER };
const NOT_FOUND_UPSTREAM = [404, 'not_found', 'no server of the project has this id'] as const;

@ApiTags('cloud: servers')
@Controller('cloud')
export class ServersController {
  constructor(private readonly servers: ServersService) {}

  @Get('servers')
  @ApiUpstreamData({
    list: true,
    properties: SERVER,
    description: "the project's servers (Nova `servers/detail`)",
  })
  @CloudRoute({ permission: 'compute:read' })
  list(@CurrentPrincipal() principal: Principal) {
    return this.servers.list(principal);
  }

  @Get('servers/:id')
  @ApiUpstreamData({ properties: SERVER, description: 'the server as Nova shows it' })
  @CloudRoute({ permission: 'compute:read', errors: [NOT_FOUND_UPSTREAM] })
  show(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.servers.show(principal, id);
  }

  @Post('servers')
  @HttpCode(202)
  @ApiUpstreamData({
    status: 202,
    properties: SERVER,
    description: 'the new server as it stands (`BUILD`); poll it',
  })
  @CloudRoute({
    permission: 'compute:create',
    capability: { feature: 'openstack', kind: 'server' },
  })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateServerBody) {
    return this.servers.create(principal, body);
  }

  @Delete('servers/:id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Nova accepted the deletion' })
  @CloudRoute({ permission: 'compute:delete', errors: [NOT_FOUND_UPSTREAM] })
  delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.servers.delete(principal, id);
  }

  @Get('images')
  @ApiUpstreamData({
    list: true,
    properties: IMAGE,
    description: 'the images the project may boot (Glance)',
  })
  @CloudRoute({ permission: 'compute:read' })
  @ApiOperation({ summary: 'List images' })
  images(@CurrentPrincipal() principal: Principal) {
    return this.servers.images(principal);
  }

  @Get('flavors')
  @ApiUpstreamData({
    list: true,
    properties: FLAVOR,
    description: 'the flavors the project may use',
  })
  @CloudRoute({ permission: 'compute:read' })
  @ApiOperation({ summary: 'List flavors' })
  flavors(@CurrentPrincipal() principal: Principal) {
    return this.servers.flavors(principal);
  }
}
