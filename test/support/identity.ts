import { expect } from '@jest/globals';
import type { SmtpSink, TestApp } from '@platform/testing';

export const PASSWORD = 'correct horse battery staple';

/** The consent fields of a signup body for the documents currently published. */
export async function currentConsent(t: TestApp): Promise<Record<string, unknown>> {
  const fields: Record<string, unknown> = {};
  for (const docType of ['agb', 'nutzungsbedingungen', 'datenschutz']) {
    const res = await t.request().get(`/legal/${docType}`).expect(200);
    fields[`legal_${docType}_version`] = res.body.data.version;
    fields[`legal_${docType}_hash`] = res.body.data.content_hash;
  }
  return fields;
}

export async function signupBody(
  t: TestApp,
  overrides: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  return {
    login: 'ada@example.com',
    name: 'Ada Lovelace',
    password: PASSWORD,
    'password-confirm': PASSWORD,
    organization_name: 'Analytical Engines',
    ...(await currentConsent(t)),
    ...overrides,
  };
}

/**
 * The value following `label:` in the first e-mail to `to` that has one, waiting for it to arrive:
 * clear the sink before a second such e-mail to the same address.
 */
export async function tokenFromMail(sink: SmtpSink, to: string, label: string): Promise<string> {
  const mail = await sink.waitFor(
    (m) =>
      m.to.some((address) => address.toLowerCase() === to.toLowerCase()) && m.text.includes(label),
  );
  const match = new RegExp(`${label}: (\\S+)`).exec(mail.text);
  expect(match).not.toBeNull();
  return match![1];
}

export interface TestAccount {
  login: string;
  password: string;
  accountId: string;
  organizationId: string;
  jwt: string;
}

/** Signs up through the API, verifies through the e-mail, logs in: the account a customer gets. */
export async function createAccount(
  t: TestApp,
  sink: SmtpSink,
  email: string,
  organization = `Org of ${email}`,
): Promise<TestAccount> {
  await t
    .request()
    .post('/create-account')
    .send(
      await signupBody(t, {
        login: email,
        name: email.split('@')[0],
        organization_name: organization,
      }),
    )
    .expect(201);
  const token = await tokenFromMail(sink, email, 'Verification token');
  await t.request().post('/verify-email').send({ token }).expect(200);
  const session = await login(t, email);
  const me = await t.request().get('/accounts/me').set(bearer(session)).expect(200);
  return {
    login: email,
    password: PASSWORD,
    accountId: me.body.data.id,
    organizationId: me.body.data.memberships[0].organization_id,
    jwt: session,
  };
}

export async function login(t: TestApp, loginName: string, password = PASSWORD): Promise<string> {
  const res = await t.request().post('/login').send({ login: loginName, password }).expect(200);
  return res.headers.authorization.replace(/^Bearer /, '');
}

export function bearer(token: string): { Authorization: string } {
  return { Authorization: `Bearer ${token}` };
}

/**
 * Mints a static token with the given scopes as the account's session; a session older than
 * the reauthentication window (tests move the clock) sends the helpers' PASSWORD along.
 */
export async function mintToken(
  t: TestApp,
  jwt: string,
  scopes: string[],
  query = '',
): Promise<string> {
  const token = { name: `token ${scopes.join(' ')}`.slice(0, 100), scopes };
  const mint = (body: object) => t.request().post(`/tokens${query}`).set(bearer(jwt)).send(body);
  let res = await mint({ token });
  if (res.status === 403 && res.body.code === 'reauthentication_required') {
    res = await mint({ token, current_password: PASSWORD });
  }
  expect(res.status).toBe(201);
  return res.body.data.token as string;
}

/**
 * Invites `email` into the organization as `role` and accepts as the invitee would: signing up
 * through the invitation when no account holds the address yet, else signing in as that
 * account (whose password is PASSWORD) and accepting with its session.
 */
export async function addMember(
  t: TestApp,
  sink: SmtpSink,
  admin: TestAccount,
  email: string,
  role: string,
): Promise<TestAccount> {
  await t
    .request()
    .post(`/invitations?organization_id=${admin.organizationId}`)
    .set(bearer(admin.jwt))
    .send({ email, role })
    .expect(201);
  const token = await tokenFromMail(sink, email, 'Invitation token');
  const shown = await t.request().get(`/invite/${token}`).expect(200);
  const existing = shown.body.data.account_exists === true ? await login(t, email) : null;
  const accept = t.request().patch(`/invite/${token}/accept`);
  const accepted = await (
    existing
      ? accept.set(bearer(existing))
      : accept.send({ name: email.split('@')[0], password: PASSWORD, 'password-confirm': PASSWORD })
  ).expect(200);
  return {
    login: email,
    password: PASSWORD,
    accountId: accepted.body.data.account_id,
    organizationId: admin.organizationId,
    jwt: existing ?? (await login(t, email)),
  };
}
