import { Injectable } from '@nestjs/common';
import { CloudAudit, CloudErrorCode, CloudException } from '@platform/cloud-core';
import type { Principal } from '@platform/identity';
import {
  forwarded,
  type NeutronObject,
  ProjectNeutron,
  SECURITY_GROUP_RULES,
  SECURITY_GROUPS,
} from './neutron.js';
import type { CreateSecurityGroupRuleBody } from './security-groups.dto.js';

/** The rules of a security group (Neutron), each reached through its group. */
@Injectable()
export class SecurityGroupRulesService {
  constructor(
    private readonly neutron: ProjectNeutron,
    private readonly audit: CloudAudit,
  ) {}

  /**
   * The group's rules. The group is read first: Neutron filters rules by a group id it does
   * not know to an empty list, where another project's group must be a 404.
   */
  async list(principal: Principal, groupId: string): Promise<NeutronObject[]> {
    const neutron = await this.neutron.of(principal);
    await neutron.show(SECURITY_GROUPS, groupId);
    return neutron.list(SECURITY_GROUP_RULES, { security_group_id: groupId });
  }

  async create(
    principal: Principal,
    groupId: string,
    body: CreateSecurityGroupRuleBody,
  ): Promise<NeutronObject> {
    const neutron = await this.neutron.of(principal);
    const rule = await neutron.create(SECURITY_GROUP_RULES, {
      ...forwarded(body),
      security_group_id: groupId,
    });
    await this.audit.record(
      principal,
      'security_group_rules.create',
      { type: 'security_group_rule', id: rule.id },
      { security_group_id: groupId },
    );
    return rule;
  }

  /** Only a rule of the group named in the path: one of another group is not found there. */
  async delete(principal: Principal, groupId: string, ruleId: string): Promise<void> {
    const neutron = await this.neutron.of(principal);
    const rule = await neutron.show(SECURITY_GROUP_RULES, ruleId);
    if (rule.security_group_id !== groupId) {
      throw new CloudException(CloudErrorCode.NotFound, 'Resource not found');
    }
    await neutron.delete(SECURITY_GROUP_RULES, ruleId);
    await this.audit.record(
      principal,
      'security_group_rules.delete',
      { type: 'security_group_rule', id: ruleId },
      { security_group_id: groupId },
    );
  }
}
