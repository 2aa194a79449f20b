import { Injectable } from '@nestjs/common';
import { preparedQuery } from '@platform/database';
import { DataSource } from 'typeorm';
import { Organization, Project } from '../entities.js';
import { IdentityErrorCode, IdentityException } from '../identity-exception.js';

/** Every project-scoped request reads its project first: a named statement. */
const PROJECT_BY_ID = {
  name: 'project-by-id',
  text: 'SELECT organization_id, name, created_at, updated_at FROM project WHERE id = $1',
};

/** A project's columns as PROJECT_BY_ID reads them. */
export interface ProjectRow {
  organization_id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

/** The entity of a project row read by hand. */
export function projectFromRow(id: string, row: ProjectRow): Project {
  return Object.assign(new Project(), {
    id,
    organizationId: row.organization_id,
    name: row.name,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}

@Injectable()
export class ProjectsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The project by id, mapped by hand (see PROJECT_BY_ID). */
  async findById(id: string): Promise<Project | null> {
    const rows = await preparedQuery<ProjectRow>(this.dataSource, PROJECT_BY_ID, [id]);
    return rows.length === 0 ? null : projectFromRow(id, rows[0]);
  }

  findInOrganization(id: string, organizationId: string): Promise<Project | null> {
    return this.dataSource.getRepository(Project).findOneBy({ id, organizationId });
  }

  listForOrganization(organizationId: string): Promise<Project[]> {
    return this.dataSource
      .getRepository(Project)
      .find({ where: { organizationId }, order: { name: 'ASC', id: 'ASC' } });
  }

  async create(organizationId: string, name: string, now: Date): Promise<Project> {
    const repository = this.dataSource.getRepository(Project);
    try {
      return await repository.save(
        repository.create({ organizationId, name, createdAt: now, updatedAt: now }),
      );
    } catch (error) {
      if ((error as { code?: string }).code === '23505') {
        throw new IdentityException(
          IdentityErrorCode.ValidationFailed,
          `A project named "${name}" already exists`,
          {
            details: {
              fields: [{ field: 'name', messages: ['name is already taken in this organization'] }],
            },
          },
        );
      }
      throw error;
    }
  }

  organizationExists(id: string): Promise<boolean> {
    return this.dataSource.getRepository(Organization).existsBy({ id });
  }

  listOrganizations(
    accountId: string,
  ): Promise<Array<{ id: string; name: string; role: string; created_at: Date }>> {
    return this.dataSource.query(
      `SELECT o.id, o.name, m.role, o.created_at
         FROM organization o JOIN membership m ON m.organization_id = o.id
        WHERE m.account_id = $1 ORDER BY o.name, o.id`,
      [accountId],
    );
  }
}
