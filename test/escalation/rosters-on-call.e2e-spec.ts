import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import { OnCallResolver } from '@platform/oncall';
import type { PutRotationBody } from '../../libs/oncall/src/rosters/rosters.dto.js';
import { createApiTestApp } from '../support/api-app.js';
import { seedAccount, seedMember } from '../support/factories.js';
import { alertsProject } from '../support/alerting.js';
import { api } from '../support/clients/index.js';
import { type TestAccount } from '../support/identity.js';

const MISSING = '00000000-0000-4000-8000-000000000000';
// Daily handoffs at 09:00 Berlin time from 2025-03-28: on 2025-03-29 at 12:00Z shift 1 runs
// (08:00Z that day until 07:00Z the next, after spring forward), so the second member is on call.
const ROTATION: PutRotationBody = {
  time_zone: 'Europe/Berlin',
  start_date: '2025-03-28',
  handoff_time: '09:00',
  shift_length: 'daily',
};
const AT = new Date('2025-03-29T12:00:00Z');

describe('who is on call', () => {
  let t: TestApp;
  let resolver: OnCallResolver;
  let owner: TestAccount;
  let ann: TestAccount;
  let bob: TestAccount;
  let cid: TestAccount;
  let zoe: TestAccount;
  let projectId: string;

  const ownerApi = () => api(t).as(owner);
  const roster = async (
    name: string,
    members: TestAccount[],
    rotation: PutRotationBody | null = ROTATION,
  ) => {
    const id = (await ownerApi().rosters(projectId).create({ name })).id;
    for (const m of members)
      await ownerApi().rosterMembers(projectId, id).add({ account_id: m.accountId });
    if (rotation) await ownerApi().rotation(projectId, id).put(rotation);
    return id;
  };
  const override = async (rosterId: string, account: TestAccount, from: string, to: string) => {
    // Later-created overrides win: each gets its own creation time.
    t.clock.advance({ seconds: 1 });
    const created = await ownerApi()
      .overrides(projectId, rosterId)
      .create({ account_id: account.accountId, starts_at: from, ends_at: to });
    return created.id;
  };
  const absent = async (account: TestAccount, from: string, to: string) =>
    (await api(t).as(account).notificationCenter().createAbsence({ starts_at: from, ends_at: to }))
      .id;
  const present = (account: TestAccount, absenceId: string) =>
    api(t).as(account).notificationCenter().deleteAbsence(absenceId);
  const onCall = async (rosterId: string, at = AT) =>
    (await resolver.onCall([rosterId], at)).get(rosterId);

  beforeAll(async () => {
    t = await createApiTestApp({ withWorker: true });
    resolver = t.get(OnCallResolver);
    owner = await seedAccount(t, 'owner@example.com', 'On-call Org');
    ann = await seedMember(t, owner, 'ann@example.com', 'developer');
    bob = await seedMember(t, owner, 'bob@example.com', 'developer');
    cid = await seedMember(t, owner, 'cid@example.com', 'developer');
    zoe = await seedMember(t, owner, 'zoe@example.com', 'developer');
    projectId = await alertsProject(t, owner, 'production');
  });

  afterAll(async () => {
    await t.close();
  });

  it('follows the rotation, lets overrides win and skips absent members', async () => {
    const id = await roster('Primary', [ann, bob, cid]);
    expect(await onCall(id)).toEqual([bob.accountId]);
    expect(await onCall(id, new Date('2025-03-30T07:00:00Z'))).toEqual([cid.accountId]);
    expect(await onCall(id, new Date('2025-03-28T07:59:59Z'))).toEqual([]);

    const first = await override(id, zoe, '2025-03-29T11:00:00Z', '2025-03-29T13:00:00Z');
    expect(await onCall(id)).toEqual([zoe.accountId]);
    const latest = await override(id, ann, '2025-03-29T11:30:00Z', '2025-03-29T12:30:00Z');
    expect(await onCall(id)).toEqual([ann.accountId]);
    // Overrides are half-open: over at their end.
    expect(await onCall(id, new Date('2025-03-29T13:00:00Z'))).toEqual([bob.accountId]);

    // The overriding account is absent: the rotation decides, skipping absent members.
    const annAway = await absent(ann, '2025-03-29T00:00:00Z', '2025-03-30T00:00:00Z');
    expect(await onCall(id)).toEqual([bob.accountId]);
    const bobAway = await absent(bob, '2025-03-29T12:00:00Z', '2025-03-29T12:00:01Z');
    expect(await onCall(id)).toEqual([cid.accountId]);
    const cidAway = await absent(cid, '2025-03-01T00:00:00Z', '2025-03-29T12:00:01Z');
    // Everyone is absent: the overriding account is paged anyway.
    expect(await onCall(id)).toEqual([ann.accountId]);

    await ownerApi().overrides(projectId, id).delete(latest);
    expect(await onCall(id)).toEqual([zoe.accountId]);
    await ownerApi().overrides(projectId, id).delete(first);
    // No override and every member absent: the scheduled member is paged anyway.
    expect(await onCall(id)).toEqual([bob.accountId]);

    // Absences are half-open too: at 12:00:01 those of bob and cid are over.
    expect(await onCall(id, new Date('2025-03-29T12:00:01Z'))).toEqual([bob.accountId]);
    await present(bob, bobAway);
    expect(await onCall(id)).toEqual([bob.accountId]);
    await present(cid, cidAway);
    await present(ann, annAway);
  });

  it('wraps past the last member to the first', async () => {
    const id = await roster('Wrapping', [ann, bob]);
    // Shift 2 (from 2025-03-30 09:00 Berlin) is ann's again; she is away, so bob covers.
    const at = new Date('2025-03-30T12:00:00Z');
    expect(await onCall(id, at)).toEqual([ann.accountId]);
    const away = await absent(ann, '2025-03-30T00:00:00Z', '2025-03-31T00:00:00Z');
    expect(await onCall(id, at)).toEqual([bob.accountId]);
    const stillAway = await absent(bob, '2025-03-30T00:00:00Z', '2025-03-31T00:00:00Z');
    expect(await onCall(id, at)).toEqual([ann.accountId]);
    await present(ann, away);
    await present(bob, stillAway);
  });

  it('resolves many rosters at once with a constant number of queries', async () => {
    const plain = await roster('Batch plain', [ann, bob, cid]);
    const noRotation = await roster('Batch no rotation', [ann], null);
    const noMembers = await roster('Batch no members', []);
    const overriddenOnly = await roster('Batch override only', [], null);
    await override(overriddenOnly, cid, '2025-03-29T00:00:00Z', '2025-03-30T00:00:00Z');
    const many = [];
    for (let i = 0; i < 12; i += 1) many.push(await roster(`Batch ${i}`, [ann, bob]));

    const dataSource = t.get(DataSource);
    const spy = jest.spyOn(dataSource, 'query');
    try {
      const single = await resolver.onCall([plain], AT);
      const singleQueries = spy.mock.calls.length;
      spy.mockClear();
      const result = await resolver.onCall(
        [plain, noRotation, noMembers, overriddenOnly, MISSING, 'not-an-id', plain, ...many],
        AT,
      );
      expect(spy.mock.calls.length).toBe(singleQueries);
      expect(singleQueries).toBe(4);
      expect(single.get(plain)).toEqual([bob.accountId]);
      expect(result.get(plain)).toEqual([bob.accountId]);
      expect(result.get(noRotation)).toEqual([]);
      expect(result.get(noMembers)).toEqual([]);
      expect(result.get(overriddenOnly)).toEqual([cid.accountId]);
      expect(result.has(MISSING)).toBe(false);
      expect(result.has('not-an-id')).toBe(false);
      for (const id of many) expect(result.get(id)).toEqual([bob.accountId]);
      expect(result.size).toBe(4 + many.length);
      expect((await resolver.onCall([], AT)).size).toBe(0);
    } finally {
      spy.mockRestore();
    }
  });

  it('lists members in rotation order and phone contacts by label', async () => {
    const first = await roster('Listing', [cid, ann]);
    const second = await roster('Listing two', [], null);
    await ownerApi()
      .rosterMembers(projectId, first)
      .add({ account_id: bob.accountId, position: 0 });
    for (const [label, phone_number] of [
      ['Zulu', '+4930111111'],
      ['Alpha', '+4930222222'],
    ])
      await ownerApi().rosterContacts(projectId, first).create({ label, phone_number });
    const members = await resolver.members([first, second, MISSING]);
    expect(members).toEqual(
      new Map([
        [first, [bob.accountId, cid.accountId, ann.accountId]],
        [second, []],
      ]),
    );
    const contacts = await resolver.phoneContacts([first, second, MISSING]);
    expect(contacts).toEqual(
      new Map([
        [
          first,
          [
            { label: 'Alpha', phoneNumber: '+4930222222' },
            { label: 'Zulu', phoneNumber: '+4930111111' },
          ],
        ],
        [second, []],
      ]),
    );
  });

  it('leaves out accounts that no longer hold a membership in the organization', async () => {
    const leaver = await seedMember(t, owner, 'leaver@example.com', 'developer');
    const id = await roster('Leavers', [ann, leaver, bob]);
    expect(await onCall(id)).toEqual([leaver.accountId]);
    await override(id, leaver, '2025-03-29T00:00:00Z', '2025-03-30T00:00:00Z');
    expect(await onCall(id)).toEqual([leaver.accountId]);

    const memberships = ownerApi().memberships(owner.organizationId);
    const membership = (await memberships.list()).find((m) => m.account_id === leaver.accountId)!;
    await memberships.delete(membership.id);

    // The rotation deals among the two remaining members: shift 1 is bob's.
    expect(await onCall(id)).toEqual([bob.accountId]);
    expect((await resolver.members([id])).get(id)).toEqual([ann.accountId, bob.accountId]);
    const shifts = await ownerApi()
      .rosters(projectId)
      .shifts(id, { from: '2025-03-29T00:00:00Z', to: '2025-03-30T00:00:00Z' });
    expect(shifts.map((s) => [s.account_id, s.source])).toEqual([
      [ann.accountId, 'rotation'],
      [bob.accountId, 'rotation'],
    ]);
    // Still listed on the roster, so it can be removed.
    const listed = await ownerApi().rosterMembers(projectId, id).list();
    expect(listed.map((m) => m.account_id)).toEqual([
      ann.accountId,
      leaver.accountId,
      bob.accountId,
    ]);
  });
});
