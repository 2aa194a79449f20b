import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { ApiUpstreamData, CloudRoute, UPSTREAM_CONFLICT } from '@platform/cloud-core';
import { CurrentPrincipal, type Principal } from '@platform/identity';
import { notFoundDoc, SECURITY_GROUP, SECURITY_GROUP_RULE } from './network.openapi.js';
import {
  CreateSecurityGroupBody,
  CreateSecurityGroupRuleBody,
  UpdateSecurityGroupBody,
} from './security-groups.dto.js';
import { ProjectNeutron, SECURITY_GROUPS } from './neutron.js';
import { SecurityGroupRulesService } from './security-group-rules.service.js';

const GROUP_404 = notFoundDoc('security group');
const RULE_404 = notFoundDoc('security group with a rule of this id');
const CAPABILITY = { feature: 'openstack', kind: 'security_group' } as const;

@ApiTags('cloud: security groups')
@Controller('cloud/security-groups')
export class SecurityGroupsController {
  constructor(
    private readonly neutron: ProjectNeutron,
    private readonly rules: SecurityGroupRulesService,
  ) {}

  @Get()
  @ApiUpstreamData({
    list: true,
    properties: SECURITY_GROUP,
    description: "the project's security groups, `default` among them",
  })
  @CloudRoute({ permission: 'network:read' })
  list(@CurrentPrincipal() principal: Principal) {
    return this.neutron.list(principal, SECURITY_GROUPS);
  }

  @Get(':id')
  @ApiUpstreamData({ properties: SECURITY_GROUP, description: 'the group with its rules' })
  @CloudRoute({ permission: 'network:read', errors: [GROUP_404] })
  show(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.neutron.show(principal, SECURITY_GROUPS, id);
  }

  @Post()
  @ApiUpstreamData({
    status: 201,
    properties: SECURITY_GROUP,
    description: 'the new group, with the egress rules Neutron gives every group',
  })
  @CloudRoute({
    permission: 'network:create',
    capability: CAPABILITY,
    errors: [UPSTREAM_CONFLICT, [409, 'conflict', 'the name is `default`, or a quota is reached']],
  })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateSecurityGroupBody) {
    return this.neutron.create(principal, SECURITY_GROUPS, body);
  }

  @Put(':id')
  @ApiUpstreamData({ properties: SECURITY_GROUP, description: 'the changed group' })
  @CloudRoute({
    permission: 'network:update',
    errors: [GROUP_404, UPSTREAM_CONFLICT, [409, 'conflict', 'the `default` group keeps its name']],
  })
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: UpdateSecurityGroupBody,
  ) {
    return this.neutron.update(principal, SECURITY_GROUPS, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'deleted, with its rules' })
  @CloudRoute({
    permission: 'network:delete',
    errors: [GROUP_404, UPSTREAM_CONFLICT, [409, 'conflict', 'the group is `default` or in use']],
  })
  delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.neutron.delete(principal, SECURITY_GROUPS, id);
  }

  @Get(':id/rules')
  @ApiUpstreamData({
    list: true,
    properties: SECURITY_GROUP_RULE,
    description: 'the rules of the group',
  })
  @CloudRoute({ permission: 'network:read', errors: [GROUP_404] })
  listRules(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.rules.list(principal, id);
  }

  @Post(':id/rules')
  @ApiUpstreamData({ status: 201, properties: SECURITY_GROUP_RULE, description: 'the new rule' })
  @CloudRoute({
    permission: 'network:create',
    capability: CAPABILITY,
    errors: [GROUP_404, UPSTREAM_CONFLICT, [409, 'conflict', 'the group has this rule already']],
  })
  createRule(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: CreateSecurityGroupRuleBody,
  ) {
    return this.rules.create(principal, id, body);
  }

  @Delete(':id/rules/:rule_id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the rule is deleted' })
  @CloudRoute({ permission: 'network:delete', errors: [RULE_404] })
  deleteRule(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('rule_id') ruleId: string,
  ) {
    return this.rules.delete(principal, id, ruleId);
  }
}
