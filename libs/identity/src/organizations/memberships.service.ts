import { Injectable } from '@nestjs/common';
import { type AuditActor, AuditLog } from '@platform/audit';
import { Clock } from '@platform/core';
import { DataSource, type EntityManager } from 'typeorm';
import { CATEGORIES, LEVELS, type PermissionOverrides } from '../access/permissions.js';
import { organizationOf, type Principal } from '../access/principal.js';
import type { Membership } from '../entities.js';
import { IdentityErrorCode, IdentityException, notFound } from '../identity-exception.js';
import { MembershipsRepository } from './memberships.repository.js';
import { SecurityNotices } from '../security/security-notices.js';
import type { UpdateMembershipBody } from './organizations.dto.js';
import { membershipView } from './organizations.service.js';
import { assertWithinCeiling, type Grant, type Grantor, grantorOf } from './role-ceiling.js';

function validationFailed(problems: Array<{ field: string; messages: string[] }>) {
  return new IdentityException(
    IdentityErrorCode.ValidationFailed,
    `Validation failed: ${problems.map((p) => p.messages.join(', ')).join('; ')}`,
    { details: { fields: problems } },
  );
}

function validateOverrides(overrides: Record<string, unknown>): PermissionOverrides {
  const problems: Array<{ field: string; messages: string[] }> = [];
  for (const [category, levels] of Object.entries(overrides)) {
    if (!(CATEGORIES as readonly string[]).includes(category)) {
      problems.push({
        field: `permissions.${category}`,
        messages: [`unknown permission category "${category}"`],
      });
    } else if (
      !Array.isArray(levels) ||
      levels.some((l) => !(LEVELS as readonly unknown[]).includes(l))
    ) {
      problems.push({
        field: `permissions.${category}`,
        messages: [`levels must be a list of ${LEVELS.join(', ')}`],
      });
    }
  }
  if (problems.length > 0) throw validationFailed(problems);
  return Object.fromEntries(
    Object.entries(overrides).map(([c, l]) => [c, [...new Set(l as string[])]]),
  );
}

const grantOf = (membership: Membership): Grant => ({
  role: membership.role,
  permissions: membership.permissions,
});

/**
 * Changes and removals of memberships, under the role ceiling (role-ceiling.ts) and the
 * last-admin rule, each audited in its own transaction. The organization is locked first, and
 * the caller's own membership is read again under that lock, so concurrent changes see each
 * other: two admins demoting each other, or the last two admins demoted at once.
 */
@Injectable()
export class MembershipsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly memberships: MembershipsRepository,
    private readonly audit: AuditLog,
    private readonly notices: SecurityNotices,
  ) {}

  async update(
    principal: Principal,
    actor: AuditActor,
    id: string,
    body: UpdateMembershipBody,
  ): Promise<ReturnType<typeof membershipView>> {
    const overrides = body.permissions ? validateOverrides(body.permissions) : undefined;
    const changed = await this.dataSource.transaction(async (manager) => {
      const { membership, grantor } = await this.lockForChange(manager, principal, id);
      const before = grantOf(membership);
      const role = body.role ?? before.role;
      // An admin holds every level: overrides would let "admin" mean less, and a promotion
      // clears the ones the membership had.
      const after: Grant = {
        role,
        permissions: role === 'admin' ? {} : (overrides ?? before.permissions),
      };
      assertWithinCeiling(grantor, before, after);
      if (role === 'admin' && overrides && Object.keys(overrides).length > 0) {
        throw validationFailed([
          {
            field: 'permissions',
            messages: ['an admin membership holds every permission and takes no overrides'],
          },
        ]);
      }
      if (before.role === 'admin' && after.role !== 'admin') {
        await this.assertAnotherAdmin(manager, membership, 'demoted');
      }
      await this.memberships.update(manager, id, after, this.clock.now());
      await this.record(manager, actor, membership, 'memberships.update', { before, after });
      return { membership, before: before.role, after: after.role };
    });
    if (changed.before !== changed.after) this.tellRoleChanged(principal, changed);
    const view = await this.memberships.findInOrganization(id, organizationOf(principal));
    if (!view) throw notFound('Membership');
    return membershipView(view);
  }

  /** The member and the organization's admins hear of a role change. */
  private tellRoleChanged(
    principal: Principal,
    changed: { membership: Membership; before: string; after: string },
  ): void {
    const { membership } = changed;
    this.notices.tell({
      event: 'membership_role_changed',
      accountId: membership.accountId,
      organizationId: membership.organizationId,
      organizationAdmins: true,
      path: `/memberships/${membership.id}?organization_id=${membership.organizationId}`,
      details: {
        membership_id: membership.id,
        member_account_id: membership.accountId,
        role_before: changed.before,
        role_after: changed.after,
        actor_id: principal.account.id,
      },
    });
  }

  async remove(principal: Principal, actor: AuditActor, id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const { membership, grantor } = await this.lockForChange(manager, principal, id);
      assertWithinCeiling(grantor, grantOf(membership), null);
      if (membership.role === 'admin')
        await this.assertAnotherAdmin(manager, membership, 'removed');
      await this.memberships.remove(manager, id);
      await this.record(manager, actor, membership, 'memberships.remove', {
        before: grantOf(membership),
      });
    });
  }

  /** Locks the organization, then reads the target and the caller's own membership. */
  private async lockForChange(
    manager: EntityManager,
    principal: Principal,
    id: string,
  ): Promise<{ membership: Membership; grantor: Grantor }> {
    const organizationId = organizationOf(principal);
    await this.memberships.lockOrganization(manager, organizationId);
    const membership = await this.memberships.findById(manager, id, organizationId);
    if (!membership) throw notFound('Membership');
    const own = await this.memberships.findOf(manager, principal.account.id, organizationId);
    return { membership, grantor: grantorOf(principal.account, own, principal.token) };
  }

  private async assertAnotherAdmin(
    manager: EntityManager,
    membership: Membership,
    verb: 'demoted' | 'removed',
  ): Promise<void> {
    if ((await this.memberships.countAdmins(manager, membership.organizationId, membership.id)) > 0)
      return;
    throw new IdentityException(
      IdentityErrorCode.LastAdmin,
      `The last admin of an organization cannot be ${verb}`,
    );
  }

  private async record(
    manager: EntityManager,
    actor: AuditActor,
    membership: Membership,
    action: string,
    details: { before: Grant; after?: Grant },
  ): Promise<void> {
    await this.audit.record(
      {
        actor,
        action,
        organizationId: membership.organizationId,
        projectId: null,
        target: { type: 'membership', id: membership.id },
        details: { account_id: membership.accountId, ...details },
      },
      manager,
    );
  }
}
