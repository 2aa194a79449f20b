import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { OnCallResolver } from '@platform/oncall';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertsProject } from '../support/alerting.js';
import { addMember, bearer, createAccount, type TestAccount } from '../support/identity.js';

type Body = Record<string, unknown>;

const MISSING = '00000000-0000-4000-8000-000000000000';
// Daily handoffs at 09:00 Berlin time from 2025-03-28: on 2025-03-29 at 12:00Z shift 1 runs
// (08:00Z that day until 07:00Z the next, after spring forward), so the second member is on call.
const ROTATION = {
  time_zone: 'Europe/Berlin',
  start_date: '2025-03-28',
  handoff_time: '09:00',
  shift_length: 'daily',
};
const AT = new Date('2025-03-29T12:00:00Z');

describe('who is on call', () => {
  let t: MailingTestApp;
  let resolver: OnCallResolver;
  let owner: TestAccount;
  let ann: TestAccount;
  let bob: TestAccount;
  let cid: TestAccount;
  let zoe: TestAccount;
  let projectId: string;

  const base = () => `/projects/${projectId}/on_call_rosters`;
  const post = (path: string, body: Body, jwt = owner.jwt) =>
    t.request().post(path).set(bearer(jwt)).send(body);
  const roster = async (name: string, members: TestAccount[], rotation: Body | null = ROTATION) => {
    const id = (await post(base(), { name }).expect(201)).body.data.id as string;
    for (const m of members)
      await post(`${base()}/${id}/on_call_roster_members`, { account_id: m.accountId }).expect(201);
    if (rotation)
      await t
        .request()
        .put(`${base()}/${id}/rotation`)
        .set(bearer(owner.jwt))
        .send(rotation)
        .expect(200);
    return id;
  };
  const override = async (rosterId: string, account: TestAccount, from: string, to: string) => {
    // Later-created overrides win: each gets its own creation time.
    t.clock.advance({ seconds: 1 });
    return (
      await post(`${base()}/${rosterId}/on_call_overrides`, {
        account_id: account.accountId,
        starts_at: from,
        ends_at: to,
      }).expect(201)
    ).body.data.id as string;
  };
  const absent = async (account: TestAccount, from: string, to: string) =>
    (
      await post('/notification_absences', { starts_at: from, ends_at: to }, account.jwt).expect(
        201,
      )
    ).body.data.id as string;
  const present = (account: TestAccount, absenceId: string) =>
    t.request().delete(`/notification_absences/${absenceId}`).set(bearer(account.jwt)).expect(204);
  const onCall = async (rosterId: string, at = AT) =>
    (await resolver.onCall([rosterId], at)).get(rosterId);

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    resolver = t.get(OnCallResolver);
    owner = await createAccount(t, t.sink, 'owner@example.com', 'On-call Org');
    ann = await addMember(t, t.sink, owner, 'ann@example.com', 'developer');
    bob = await addMember(t, t.sink, owner, 'bob@example.com', 'developer');
    cid = await addMember(t, t.sink, owner, 'cid@example.com', 'developer');
    zoe = await addMember(t, t.sink, owner, 'zoe@example.com', 'developer');
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

    await t
      .request()
      .delete(`${base()}/${id}/on_call_overrides/${latest}`)
      .set(bearer(owner.jwt))
      .expect(204);
    expect(await onCall(id)).toEqual([zoe.accountId]);
    await t
      .request()
      .delete(`${base()}/${id}/on_call_overrides/${first}`)
      .set(bearer(owner.jwt))
      .expect(204);
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
    await post(`${base()}/${first}/on_call_roster_members`, {
      account_id: bob.accountId,
      position: 0,
    }).expect(201);
    for (const [label, phone_number] of [
      ['Zulu', '+4930111111'],
      ['Alpha', '+4930222222'],
    ])
      await post(`${base()}/${first}/on_call_roster_phone_contacts`, {
        label,
        phone_number,
      }).expect(201);
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
    const leaver = await addMember(t, t.sink, owner, 'leaver@example.com', 'developer');
    const id = await roster('Leavers', [ann, leaver, bob]);
    expect(await onCall(id)).toEqual([leaver.accountId]);
    await override(id, leaver, '2025-03-29T00:00:00Z', '2025-03-30T00:00:00Z');
    expect(await onCall(id)).toEqual([leaver.accountId]);

    const memberships = await t
      .request()
      .get(`/memberships?organization_id=${owner.organizationId}`)
      .set(bearer(owner.jwt))
      .expect(200);
    const membership = (memberships.body.data as Body[]).find(
      (m) => m.account_id === leaver.accountId,
    )!;
    await t
      .request()
      .delete(`/memberships/${membership.id as string}?organization_id=${owner.organizationId}`)
      .set(bearer(owner.jwt))
      .expect(204);

    // The rotation deals among the two remaining members: shift 1 is bob's.
    expect(await onCall(id)).toEqual([bob.accountId]);
    expect((await resolver.members([id])).get(id)).toEqual([ann.accountId, bob.accountId]);
    const shifts = await t
      .request()
      .get(`${base()}/${id}/shifts?from=2025-03-29T00:00:00Z&to=2025-03-30T00:00:00Z`)
      .set(bearer(owner.jwt))
      .expect(200);
    expect((shifts.body.data as Body[]).map((s) => [s.account_id, s.source])).toEqual([
      [ann.accountId, 'rotation'],
      [bob.accountId, 'rotation'],
    ]);
    // Still listed on the roster, so it can be removed.
    const listed = await t
      .request()
      .get(`${base()}/${id}/on_call_roster_members`)
      .set(bearer(owner.jwt))
      .expect(200);
    expect((listed.body.data as Body[]).map((m) => m.account_id)).toEqual([
      ann.accountId,
      leaver.accountId,
      bob.accountId,
    ]);
  });
});
