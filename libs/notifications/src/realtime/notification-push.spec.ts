import { describe, expect, it } from '@jest/globals';
import { confinedPush, type PushEnvelope } from './notification-push.js';

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const counts = { [A]: 4, [B]: 2 };

const envelope = (
  event: PushEnvelope['push']['event'],
  organizationId: string | null | undefined,
  /** null: the envelope carries no counts. */
  unreadByOrganization: Record<string, number> | null = counts,
): PushEnvelope => ({
  account_id: 'account',
  organization_id: organizationId,
  unread_by_organization: unreadByOrganization ?? undefined,
  push: { event, notification: { id: 'n' }, unread_count: 7 },
});

describe('confinedPush: what a socket confined to one organization receives', () => {
  it("passes its organization's created and read pushes with that organization's unread count", () => {
    expect(confinedPush(envelope('created', B), B)).toEqual({
      event: 'created',
      notification: { id: 'n' },
      unread_count: 2,
    });
    expect(confinedPush(envelope('read', B), B)).toEqual({
      event: 'read',
      notification: { id: 'n' },
      unread_count: 2,
    });
    expect(confinedPush(envelope('created', B, {}), B)?.unread_count).toBe(0);
  });

  it("drops pushes about another organization's notifications or those of none", () => {
    expect(confinedPush(envelope('created', A), B)).toBeNull();
    expect(confinedPush(envelope('read', A), B)).toBeNull();
    expect(confinedPush(envelope('created', null), B)).toBeNull();
    expect(confinedPush(envelope('read', undefined), B)).toBeNull();
    expect(confinedPush(envelope('all_read', A), B)).toBeNull();
  });

  it('passes all_read of its organization or of every organization', () => {
    expect(confinedPush(envelope('all_read', B), B)?.unread_count).toBe(2);
    expect(confinedPush(envelope('all_read', null), B)?.unread_count).toBe(2);
  });

  it('drops a push without per-organization counts (it cannot tell its count)', () => {
    expect(confinedPush(envelope('created', B, null), B)).toBeNull();
    expect(confinedPush(envelope('all_read', null, null), B)).toBeNull();
  });
});
