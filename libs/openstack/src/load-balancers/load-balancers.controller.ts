import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  ApiUpstreamData,
  CloudRoute,
  INTEGER,
  NULLABLE_STRING,
  OBJECT_LIST,
  STRING,
} from '@platform/cloud-core';
import { CurrentPrincipal, type Principal } from '@platform/identity';
import { LoadBalancerFilterQuery } from './load-balancers.dto.js';
import { LoadBalancersService } from './load-balancers.service.js';

const STATUSES = {
  provisioning_status: { type: 'string', description: 'ACTIVE, PENDING_CREATE, ERROR, ...' },
  operating_status: { type: 'string', description: 'ONLINE, OFFLINE, DEGRADED, ERROR, ...' },
};
const LOAD_BALANCER = {
  id: STRING,
  name: STRING,
  vip_address: NULLABLE_STRING,
  vip_subnet_id: NULLABLE_STRING,
  listeners: OBJECT_LIST,
  pools: OBJECT_LIST,
  provider: STRING,
  ...STATUSES,
};
const LISTENER = {
  id: STRING,
  name: STRING,
  protocol: STRING,
  protocol_port: INTEGER,
  loadbalancers: OBJECT_LIST,
  default_pool_id: NULLABLE_STRING,
  ...STATUSES,
};
const POOL = {
  id: STRING,
  name: STRING,
  protocol: STRING,
  lb_algorithm: STRING,
  loadbalancers: OBJECT_LIST,
  listeners: OBJECT_LIST,
  members: OBJECT_LIST,
  healthmonitor_id: NULLABLE_STRING,
  ...STATUSES,
};
const MEMBER = {
  id: STRING,
  name: STRING,
  address: STRING,
  protocol_port: INTEGER,
  weight: INTEGER,
  subnet_id: NULLABLE_STRING,
  ...STATUSES,
};
const HEALTH_MONITOR = {
  id: STRING,
  name: STRING,
  type: { type: 'string', description: 'HTTP, HTTPS, PING, TCP, TLS-HELLO, UDP-CONNECT, SCTP' },
  delay: INTEGER,
  timeout: INTEGER,
  max_retries: INTEGER,
  pools: OBJECT_LIST,
  ...STATUSES,
};
const LB_NOT_FOUND = [404, 'not_found', 'no load balancer of the project has this id'] as const;
const POOL_NOT_FOUND = [404, 'not_found', 'no pool of the project has this id'] as const;
const FILTER_INVALID = [
  422,
  'validation_failed',
  '`loadbalancer_id` is not a uuid; nothing is sent upstream',
] as const;

/**
 * Load balancers (Octavia), read-only: permission category `network`. The spec lists no
 * creates here, so the openstack kind `load_balancer` gates nothing yet; a create added later
 * takes it as its Axis B.
 */
@ApiTags('cloud: load balancers')
@Controller('cloud')
export class LoadBalancersController {
  constructor(private readonly lbs: LoadBalancersService) {}

  @Get('loadbalancers')
  @ApiUpstreamData({
    list: true,
    properties: LOAD_BALANCER,
    description: "the project's load balancers (Octavia)",
  })
  @CloudRoute({ permission: 'network:read' })
  @ApiOperation({ summary: 'List load balancers' })
  loadBalancers(@CurrentPrincipal() principal: Principal) {
    return this.lbs.loadBalancers(principal);
  }

  @Get('loadbalancers/:id')
  @ApiUpstreamData({
    properties: LOAD_BALANCER,
    description: 'the load balancer as Octavia shows it',
  })
  @CloudRoute({ permission: 'network:read', errors: [LB_NOT_FOUND] })
  @ApiOperation({ summary: 'Show load balancer' })
  loadBalancer(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.lbs.loadBalancer(principal, id);
  }

  @Get('lb/listeners')
  @ApiUpstreamData({ list: true, properties: LISTENER, description: "the project's listeners" })
  @CloudRoute({ permission: 'network:read', errors: [FILTER_INVALID] })
  @ApiOperation({ summary: 'List listeners' })
  listeners(@CurrentPrincipal() principal: Principal, @Query() query: LoadBalancerFilterQuery) {
    return this.lbs.listeners(principal, query.loadbalancer_id);
  }

  @Get('lb/pools')
  @ApiUpstreamData({ list: true, properties: POOL, description: "the project's pools" })
  @CloudRoute({ permission: 'network:read', errors: [FILTER_INVALID] })
  @ApiOperation({ summary: 'List pools' })
  pools(@CurrentPrincipal() principal: Principal, @Query() query: LoadBalancerFilterQuery) {
    return this.lbs.pools(principal, query.loadbalancer_id);
  }

  @Get('lb/pools/:id/members')
  @ApiUpstreamData({ list: true, properties: MEMBER, description: 'the members of the pool' })
  @CloudRoute({ permission: 'network:read', errors: [POOL_NOT_FOUND] })
  @ApiOperation({ summary: 'List pool members' })
  members(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.lbs.members(principal, id);
  }

  @Get('lb/health-monitors')
  @ApiUpstreamData({
    list: true,
    properties: HEALTH_MONITOR,
    description: "the project's health monitors",
  })
  @CloudRoute({ permission: 'network:read' })
  @ApiOperation({ summary: 'List health monitors' })
  healthMonitors(@CurrentPrincipal() principal: Principal) {
    return this.lbs.healthMonitors(principal);
  }
}
