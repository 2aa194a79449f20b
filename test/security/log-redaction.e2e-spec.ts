import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { LogCapture, type LogLine, type TestApp } from '@platform/testing';
import { signToken } from '../../libs/escalation/src/acknowledgement/signed-link.js';
import {
  createApiTestApp,
  createMailingApiTestApp,
  type MailingTestApp,
} from '../support/api-app.js';
import { bearer, login, PASSWORD, signupBody, tokenFromMail } from '../support/identity.js';

const ADA = 'ada@logs.example.com';
const GRACE = 'grace@logs.example.com';

/** The access log line of a request, once the response has finished. */
function accessLine(log: LogCapture, method: string, route: string): Promise<LogLine> {
  return log.waitFor(
    (line) => line.message === 'request' && line.method === method && line.route === route,
  );
}

/**
 * Credentials travel in paths (invitations, signed acknowledgement links), queries (e-mail
 * verification), headers (JWTs) and bodies (passwords); none of them may reach the log, which
 * says `[redacted]` where they were.
 */
describe('secrets in the log', () => {
  describe('requests carrying credentials', () => {
    const log = new LogCapture();
    let t: MailingTestApp;

    beforeAll(async () => {
      t = await createMailingApiTestApp({
        logDestination: log.stream,
        config: { logLevel: 'info' },
      });
    });

    afterAll(async () => {
      await t?.close();
    });

    it('logs their routes and redacted paths, and never the credentials', async () => {
      await t
        .request()
        .post('/create-account')
        .send(await signupBody(t, { login: ADA }))
        .expect(201);
      const verification = await tokenFromMail(t.sink, ADA, 'Verification token');
      await t
        .request()
        .get(`/verify-email?token=${encodeURIComponent(verification)}`)
        .set('Accept', 'application/json')
        .expect(200);
      await t
        .request()
        .post('/login')
        .send({ login: ADA, password: 'a wrong password guess' })
        .expect(401);
      const jwt = await login(t, ADA);
      const me = await t.request().get('/accounts/me').set(bearer(jwt)).expect(200);
      const organizationId: string = me.body.data.memberships[0].organization_id;

      await t
        .request()
        .post(`/invitations?organization_id=${organizationId}`)
        .set(bearer(jwt))
        .send({ email: GRACE, role: 'developer' })
        .expect(201);
      const invitation = await tokenFromMail(t.sink, GRACE, 'Invitation token');
      await t.request().get(`/invite/${invitation}`).expect(200);

      const issued = Math.floor(t.clock.now().getTime() / 1000);
      const ackLink = signToken(t.config.secretKey, 'ack_link', {
        a: randomUUID(),
        u: me.body.data.id,
        i: randomUUID(),
        t: issued,
      });
      // A genuine link whose alert does not exist: the path is logged all the same.
      await t.request().get(`/alerts/ack/${ackLink}`).set(bearer(jwt)).expect(404);
      await t.request().post(`/alerts/ack/${ackLink}`).expect(404);
      const phoneToken = signToken(t.config.secretKey, 'phone_ack', { p: randomUUID(), t: issued });
      await t.request().post(`/alerts/phone_ack/${phoneToken}`).type('form').send({ Digits: '1' });

      expect(await accessLine(log, 'GET', '/verify-email')).toMatchObject({
        path: '/verify-email',
        status: 200,
      });
      expect(await accessLine(log, 'POST', '/login')).toMatchObject({ path: '/login' });
      expect(await accessLine(log, 'GET', '/invite/:token')).toMatchObject({
        path: '/invite/[redacted]',
        status: 200,
      });
      expect(await accessLine(log, 'GET', '/alerts/ack/:signed_id')).toMatchObject({
        path: '/alerts/ack/[redacted]',
        status: 404,
      });
      expect(await accessLine(log, 'POST', '/alerts/ack/:signed_id')).toMatchObject({
        path: '/alerts/ack/[redacted]',
        status: 404,
      });
      expect(await accessLine(log, 'POST', '/alerts/phone_ack/:token')).toMatchObject({
        path: '/alerts/phone_ack/[redacted]',
        status: 403,
      });

      const text = log.text();
      for (const secret of [
        verification,
        encodeURIComponent(verification),
        PASSWORD,
        'a wrong password guess',
        jwt,
        invitation,
        ackLink,
        phoneToken,
      ]) {
        expect(text).not.toContain(secret);
      }
    });
  });

  describe('e-mails written to the log (no SMTP_URL)', () => {
    const log = new LogCapture();
    let t: TestApp;

    beforeAll(async () => {
      t = await createApiTestApp({
        withWorker: true,
        logDestination: log.stream,
        config: { logLevel: 'info', smtpUrl: null },
      });
    });

    afterAll(async () => {
      await t?.close();
    });

    it('shows the e-mail with its link and token redacted', async () => {
      await t
        .request()
        .post('/create-account')
        .send(await signupBody(t, { login: ADA }))
        .expect(201);
      const line = await log.waitFor((l) => l.context === 'mail');
      const email = line.email as { to: string; subject: string; text: string };

      expect(email).toMatchObject({ to: ADA, subject: 'Verify your e-mail address' });
      expect(email.text).toContain(`${t.config.publicUrl}/verify-email?token=[redacted]\n`);
      expect(email.text).toContain('Verification token: [redacted]\n');
      // Nothing token-like is left after either label.
      expect(email.text).not.toMatch(/token=(?!\[redacted\])|token: (?!\[redacted\])/);
      expect(log.text()).not.toContain(PASSWORD);
    });
  });
});
