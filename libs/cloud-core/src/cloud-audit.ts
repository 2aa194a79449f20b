import { Injectable } from '@nestjs/common';
import { actorOf, AuditLog } from '@platform/audit';
import type { Principal } from '@platform/identity';

/**
 * Rule 5: creates, deletes and changes of cloud resources are audited as `<area>.<verb>`
 * (`servers.create`), with the upstream id as the target. Recorded once the upstream call
 * succeeded: a refused request changed nothing.
 */
@Injectable()
export class CloudAudit {
  constructor(private readonly audit: AuditLog) {}

  async record(
    principal: Principal,
    action: string,
    target: { type: string; id: string },
    details: Record<string, unknown> = {},
  ): Promise<void> {
    if (!principal.organizationId) throw new Error('cloud audit needs an organization');
    await this.audit.record({
      actor: actorOf(principal),
      action,
      organizationId: principal.organizationId,
      projectId: principal.projectId,
      target,
      details,
    });
  }
}
