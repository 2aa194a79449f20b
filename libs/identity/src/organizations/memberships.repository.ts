import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { PermissionOverrides, Role } from '../access/permissions.js';
import { Membership } from '../entities.js';

export interface MembershipView {
  id: string;
  organization_id: string;
  organization_name: string;
  account_id: string;
  login: string;
  name: string;
  role: Role;
  permissions: PermissionOverrides;
  created_at: Date;
}

const VIEW = `
  SELECT m.id, m.organization_id, o.name AS organization_name, m.account_id, a.login, a.name,
         m.role, m.permissions, m.created_at
    FROM membership m
    JOIN organization o ON o.id = m.organization_id
    JOIN account a ON a.id = m.account_id`;

@Injectable()
export class MembershipsRepository {
  constructor(private readonly dataSource: DataSource) {}

  find(accountId: string, organizationId: string): Promise<Membership | null> {
    return this.dataSource.getRepository(Membership).findOneBy({ accountId, organizationId });
  }

  listForAccount(accountId: string): Promise<MembershipView[]> {
    return this.dataSource.query(`${VIEW} WHERE m.account_id = $1 ORDER BY o.name, o.id`, [
      accountId,
    ]);
  }

  listForOrganization(organizationId: string): Promise<MembershipView[]> {
    return this.dataSource.query(`${VIEW} WHERE m.organization_id = $1 ORDER BY a.name, a.id`, [
      organizationId,
    ]);
  }

  async findInOrganization(id: string, organizationId: string): Promise<MembershipView | null> {
    const rows: MembershipView[] = await this.dataSource.query(
      `${VIEW} WHERE m.id = $1 AND m.organization_id = $2`,
      [id, organizationId],
    );
    return rows[0] ?? null;
  }

  async add(
    manager: EntityManager,
    organizationId: string,
    accountId: string,
    role: Role,
    now: Date,
  ): Promise<Membership> {
    const repository = manager.getRepository(Membership);
    return repository.save(
      repository.create({
        organizationId,
        accountId,
        role,
        permissions: {},
        createdAt: now,
        updatedAt: now,
      }),
    );
  }

  /**
   * Serializes the membership changes of one organization: the ceiling and last-admin checks
   * read memberships under this lock, so two concurrent demotions cannot both pass. NO KEY
   * UPDATE leaves inserts that merely reference the organization (projects, audit entries) free.
   */
  async lockOrganization(manager: EntityManager, organizationId: string): Promise<void> {
    await manager.query('SELECT 1 FROM organization WHERE id = $1 FOR NO KEY UPDATE', [
      organizationId,
    ]);
  }

  findById(manager: EntityManager, id: string, organizationId: string): Promise<Membership | null> {
    return manager.getRepository(Membership).findOneBy({ id, organizationId });
  }

  findOf(
    manager: EntityManager,
    accountId: string,
    organizationId: string,
  ): Promise<Membership | null> {
    return manager.getRepository(Membership).findOneBy({ accountId, organizationId });
  }

  countAdmins(manager: EntityManager, organizationId: string, exceptId: string): Promise<number> {
    return manager
      .getRepository(Membership)
      .createQueryBuilder('m')
      .where('m.organization_id = :organizationId AND m.role = :role AND m.id <> :exceptId', {
        organizationId,
        role: 'admin',
        exceptId,
      })
      .getCount();
  }

  async update(
    manager: EntityManager,
    id: string,
    changes: { role: Role; permissions: PermissionOverrides },
    now: Date,
  ): Promise<void> {
    await manager.getRepository(Membership).update({ id }, { ...changes, updatedAt: now });
  }

  async remove(manager: EntityManager, id: string): Promise<void> {
    await manager.getRepository(Membership).delete({ id });
  }
}
