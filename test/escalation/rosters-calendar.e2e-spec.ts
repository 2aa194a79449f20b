import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import ical, { type VEvent } from 'node-ical';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertsProject } from '../support/alerting.js';
import { expectError } from '../support/clients/expect-error.js';
import {
  addMember,
  bearer,
  createAccount,
  mintToken,
  type TestAccount,
} from '../support/identity.js';

type Body = Record<string, unknown>;
const DAY_MS = 86_400_000;

describe('on-call roster calendar feeds', () => {
  let t: MailingTestApp;
  let owner: TestAccount;
  let ann: TestAccount;
  let bob: TestAccount;
  let operator: TestAccount;
  let projectId: string;
  let otherProjectId: string;
  let rosterId: string;

  const post = (path: string, body: Body = {}, credential = owner.jwt) =>
    t.request().post(`/projects/${projectId}${path}`).set(bearer(credential)).send(body);
  const createFeed = async (roster = rosterId) =>
    (await post(`/on_call_rosters/${roster}/calendar_feed`).expect(201)).body.data as {
      url: string;
    };
  const fetchFeed = (url: string) => t.request().get(new URL(url).pathname);
  const events = (text: string) =>
    Object.values(ical.sync.parseICS(text))
      .filter((component): component is VEvent => component?.type === 'VEVENT')
      .sort((a, b) => a.start.getTime() - b.start.getTime());

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    t.clock.set('2026-05-04T10:00:00Z');
    owner = await createAccount(t, t.sink, 'owner@example.com', 'Calendar Org');
    ann = await addMember(t, t.sink, owner, 'ann@example.com', 'developer');
    bob = await addMember(t, t.sink, owner, 'bob@example.com', 'developer');
    operator = await addMember(t, t.sink, owner, 'operator@example.com', 'operator');
    projectId = await alertsProject(t, owner, 'production');
    otherProjectId = await alertsProject(t, owner, 'staging');
    rosterId = (await post('/on_call_rosters', { name: 'Primary' }).expect(201)).body.data.id;
    for (const member of [ann, bob])
      await post(`/on_call_rosters/${rosterId}/on_call_roster_members`, {
        account_id: member.accountId,
      }).expect(201);
    await t
      .request()
      .put(`/projects/${projectId}/on_call_rosters/${rosterId}/rotation`)
      .set(bearer(owner.jwt))
      .send({
        time_zone: 'UTC',
        start_date: '2026-05-01',
        handoff_time: '09:00',
        shift_length: 'weekly',
      })
      .expect(200);
    // Bob covers Monday 12:00 to 18:00 of the second week.
    await post(`/on_call_rosters/${rosterId}/on_call_overrides`, {
      account_id: bob.accountId,
      starts_at: '2026-05-11T12:00:00Z',
      ends_at: '2026-05-11T18:00:00Z',
    }).expect(201);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('answers 201 with a secret feed URL', async () => {
    const res = await post(`/on_call_rosters/${rosterId}/calendar_feed`).expect(201);
    expect(res.body.data).toEqual({
      url: expect.stringMatching(
        new RegExp(`^http://[^/]+/calendar_feeds/${rosterId}\\.[A-Za-z0-9_-]{43}$`),
      ),
    });
    expect(res.body.metadata).toMatchObject({ project_id: projectId });
  });

  it('serves text/calendar with the next 90 days of shifts, rotation and overrides, without credentials', async () => {
    const { url } = await createFeed();
    const res = await fetchFeed(url).expect(200);
    expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
    const text = res.text;
    const found = events(text);
    const now = t.clock.now().getTime();
    // Weekly turns from Friday 2026-05-01 09:00: ann, bob, ann, … ; the one running now shows
    // whole, and the override is a shift of its own (as GET .../shifts shows it).
    expect(
      found.slice(0, 6).map((e) => [e.summary, e.start.toISOString(), e.end!.toISOString()]),
    ).toEqual([
      ['On call: ann', '2026-05-01T09:00:00.000Z', '2026-05-08T09:00:00.000Z'],
      ['On call: bob', '2026-05-08T09:00:00.000Z', '2026-05-11T12:00:00.000Z'],
      ['On call: bob', '2026-05-11T12:00:00.000Z', '2026-05-11T18:00:00.000Z'],
      ['On call: bob', '2026-05-11T18:00:00.000Z', '2026-05-15T09:00:00.000Z'],
      ['On call: ann', '2026-05-15T09:00:00.000Z', '2026-05-22T09:00:00.000Z'],
      ['On call: bob', '2026-05-22T09:00:00.000Z', '2026-05-29T09:00:00.000Z'],
    ]);
    expect(found[2].description).toBe('bob is on call for Primary (override)');
    expect(found[1].description).toBe('bob is on call for Primary (rotation)');
    expect(found.every((e) => e.end!.getTime() > now)).toBe(true);
    expect(found.every((e) => e.start.getTime() < now + 90 * DAY_MS)).toBe(true);
    expect(found.at(-1)!.end!.toISOString()).toBe(new Date(now + 90 * DAY_MS).toISOString());
    expect(new Set(found.map((e) => e.uid)).size).toBe(found.length);
    expect(text).toContain('DTSTART:20260501T090000Z');
  });

  it('splits a turn around an override of another member, each shift a VEVENT with a stable UID', async () => {
    await post(`/on_call_rosters/${rosterId}/on_call_overrides`, {
      account_id: operator.accountId,
      starts_at: '2026-05-16T00:00:00Z',
      ends_at: '2026-05-17T00:00:00Z',
    }).expect(201);
    const { url } = await createFeed();
    const first = events((await fetchFeed(url).expect(200)).text);
    expect(
      first
        .filter((e) => e.start.getTime() >= Date.parse('2026-05-15T09:00:00Z'))
        .slice(0, 3)
        .map((e) => [e.summary, e.start.toISOString(), e.end!.toISOString()]),
    ).toEqual([
      ['On call: ann', '2026-05-15T09:00:00.000Z', '2026-05-16T00:00:00.000Z'],
      ['On call: operator', '2026-05-16T00:00:00.000Z', '2026-05-17T00:00:00.000Z'],
      ['On call: ann', '2026-05-17T00:00:00.000Z', '2026-05-22T09:00:00.000Z'],
    ]);
    t.clock.advance({ hours: 3 });
    const again = events((await fetchFeed(url).expect(200)).text);
    expect(again.map((e) => e.uid).slice(0, 6)).toEqual(first.map((e) => e.uid).slice(0, 6));
  });

  it('replaces the URL on every call: the previous one answers 404 with the envelope', async () => {
    const old = await createFeed();
    await fetchFeed(old.url).expect(200);
    const fresh = await createFeed();
    expect(fresh.url).not.toBe(old.url);
    expectError(await fetchFeed(old.url), 404, 'not_found');
    await fetchFeed(fresh.url).expect(200);
  });

  it('answers 404 to forged, malformed and deleted-roster keys', async () => {
    const forged = `/calendar_feeds/${rosterId}.${'A'.repeat(43)}`;
    for (const path of [forged, '/calendar_feeds/nonsense', `/calendar_feeds/${rosterId}`])
      expectError(await t.request().get(path), 404, 'not_found');
    const doomed = (await post('/on_call_rosters', { name: 'Doomed' }).expect(201)).body.data.id;
    const { url } = await createFeed(doomed);
    await fetchFeed(url).expect(200);
    await t
      .request()
      .delete(`/projects/${projectId}/on_call_rosters/${doomed}`)
      .set(bearer(owner.jwt))
      .expect(204);
    expectError(await fetchFeed(url), 404, 'not_found');
  });

  it('serves an empty calendar for a roster with nobody scheduled', async () => {
    const empty = (await post('/on_call_rosters', { name: 'Empty' }).expect(201)).body.data.id;
    const text = (await fetchFeed((await createFeed(empty)).url).expect(200)).text;
    expect(events(text)).toEqual([]);
    expect(text).toContain('X-WR-CALNAME:On call: Empty');
  });

  it("answers 404 for another project's roster, and to members without alerts delete 403", async () => {
    expectError(
      await t
        .request()
        .post(`/projects/${otherProjectId}/on_call_rosters/${rosterId}/calendar_feed`)
        .set(bearer(owner.jwt)),
      404,
      'not_found',
    );
    expectError(
      await post(`/on_call_rosters/${rosterId}/calendar_feed`, {}, operator.jwt),
      403,
      'forbidden',
    );
  });

  it('needs on_call_rosters:manage on a token', async () => {
    const writer = await mintToken(t, owner.jwt, ['on_call_rosters:write']);
    const manager = await mintToken(t, owner.jwt, ['on_call_rosters:manage']);
    expectError(
      await post(`/on_call_rosters/${rosterId}/calendar_feed`, {}, writer),
      403,
      'insufficient_scope',
    );
    await post(`/on_call_rosters/${rosterId}/calendar_feed`, {}, manager).expect(201);
  });

  it('answers 403 alerts_capability_not_enabled once the project lost the capability', async () => {
    const roster = (
      await t
        .request()
        .post(`/projects/${otherProjectId}/on_call_rosters`)
        .set(bearer(owner.jwt))
        .send({ name: 'Staging' })
        .expect(201)
    ).body.data.id;
    const { url } = (
      await t
        .request()
        .post(`/projects/${otherProjectId}/on_call_rosters/${roster}/calendar_feed`)
        .set(bearer(owner.jwt))
        .expect(201)
    ).body.data;
    await t
      .request()
      .delete(
        `/organizations/${owner.organizationId}/projects/${otherProjectId}/feature-grants/alerts`,
      )
      .set(bearer(owner.jwt))
      .expect(204);
    expectError(await fetchFeed(url), 403, 'alerts_capability_not_enabled');
  });
});
