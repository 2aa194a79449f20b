import { Injectable } from '@nestjs/common';
import type { Principal } from '@platform/identity';

/** A part of the project detail that a library above this one contributes. */
export type ProjectDetailSection = (
  projectId: string,
  principal: Principal,
) => Promise<Record<string, unknown>>;

/**
 * Sections of GET /projects/{id} that libraries above capabilities add (the Keystone project
 * that serves the project, shown to platform admins), registered at start-up, so this library
 * reads no table of theirs.
 */
@Injectable()
export class ProjectDetailSections {
  private readonly sections: ProjectDetailSection[] = [];

  register(section: ProjectDetailSection): void {
    this.sections.push(section);
  }

  async read(projectId: string, principal: Principal): Promise<Record<string, unknown>> {
    const parts = await Promise.all(this.sections.map((section) => section(projectId, principal)));
    return Object.assign({}, ...parts) as Record<string, unknown>;
  }
}
