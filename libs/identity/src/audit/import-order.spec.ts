// The audit library first: it imports this library, which imports it back (see its index).
import { AuditLog, AuditModule } from '@platform/audit';
import { describe, expect, it } from '@jest/globals';
import { IdentityModule } from '../identity.module.js';
import { InvitationsService } from '../invitations/invitations.service.js';
import { MembershipsService } from '../organizations/memberships.service.js';

describe('identity and audit libraries', () => {
  it('load in either order, with the audit classes defined when identity uses them', () => {
    expect(Reflect.getMetadata('imports', IdentityModule)).toContain(AuditModule);
    for (const service of [InvitationsService, MembershipsService]) {
      expect(Reflect.getMetadata('design:paramtypes', service)).toContain(AuditLog);
    }
  });
});
