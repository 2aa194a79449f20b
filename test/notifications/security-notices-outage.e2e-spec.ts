import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SecurityNotices } from '@platform/identity';
import { QUEUE_REDIS } from '@platform/queue';
import type { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { createAccount, PASSWORD } from '../support/identity.js';

const ADDRESS = '203.0.113.7';
const AGENT = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0';

describe('security notifications while the queue is unreachable', () => {
  let t: MailingTestApp;

  beforeAll(async () => {
    t = await createMailingApiTestApp({ config: { trustedProxies: ['loopback'] } });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('still logs the account in; the notice is lost, not the login', async () => {
    const gus = await createAccount(t, t.sink, 'gus@security.example');
    // The queues' own connection goes away for good; the login throttle's stays.
    t.get<Redis>(QUEUE_REDIS).disconnect();
    await t
      .request()
      .post('/login')
      .set('X-Forwarded-For', ADDRESS)
      .set('User-Agent', AGENT)
      .send({ login: gus.login, password: PASSWORD })
      .expect(200);
    await t.get(SecurityNotices).settled();
    const rows: unknown[] = await t
      .get(DataSource)
      .query(`SELECT 1 FROM notification WHERE account_id = $1`, [gus.accountId]);
    expect(rows).toEqual([]);
    // Back, so the app closes its queues as usual.
    await t.get<Redis>(QUEUE_REDIS).connect();
  });
});
