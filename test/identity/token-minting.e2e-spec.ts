import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertsProject } from '../support/alerting.js';
import {
  bearer,
  createAccount,
  login,
  mintToken,
  PASSWORD,
  type TestAccount,
} from '../support/identity.js';

const TOKEN = { token: { name: 'ci', scopes: ['projects:read'] } };

/**
 * Minting a static token needs a login younger than 15 minutes or the current password: a
 * session JWT stolen hours after its login cannot turn itself into a credential that never
 * expires.
 */
describe('minting static tokens with an old session', () => {
  let t: MailingTestApp;
  let ada: TestAccount;
  let projectId: string;

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    ada = await createAccount(t, t.sink, 'ada@example.com');
    projectId = await alertsProject(t, ada);
  });

  afterAll(async () => {
    await t.close();
  });

  /** The three ways to mint, each with an optional current_password. */
  const mints = (jwt: string, currentPassword?: string) => {
    const extra = currentPassword === undefined ? {} : { current_password: currentPassword };
    return [
      t
        .request()
        .post('/tokens')
        .set(bearer(jwt))
        .send({ ...TOKEN, ...extra }),
      t
        .request()
        .post(`/organizations/${ada.organizationId}/api_tokens`)
        .set(bearer(jwt))
        .send({ ...TOKEN, ...extra }),
      t
        .request()
        .post(`/projects/${projectId}/alert_ingest_tokens`)
        .set(bearer(jwt))
        .send({ name: 'alertmanager', ...extra }),
    ];
  };

  it('lets a session younger than 15 minutes mint without the password', async () => {
    const jwt = await login(t, ada.login);
    t.clock.advance({ minutes: 14 });
    for (const res of await Promise.all(mints(jwt))) expect(res.status).toBe(201);
  });

  it('refuses an older session with 403 reauthentication_required', async () => {
    const jwt = await login(t, ada.login);
    t.clock.advance({ minutes: 15 });
    for (const res of await Promise.all(mints(jwt))) {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        code: 'reauthentication_required',
        source_service: 'identity',
      });
    }
    // Still a valid session for everything else.
    await t.request().get('/tokens').set(bearer(jwt)).expect(200);
  });

  it('lets the older session mint with the current password, and not with a wrong one', async () => {
    const jwt = await login(t, ada.login);
    t.clock.advance({ hours: 11 });
    for (const res of await Promise.all(mints(jwt, PASSWORD))) expect(res.status).toBe(201);
    for (const res of await Promise.all(mints(jwt, 'not the password'))) {
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details.fields).toEqual([
        { field: 'current_password', messages: [expect.any(String)] },
      ]);
    }
  });

  it('records minting and revoking in the audit log, with the credential used', async () => {
    const db = t.get(DataSource);
    const jwt = await login(t, ada.login);
    const raw = await mintToken(t, jwt, ['projects:read', 'tokens:*']);
    const [minted] = await db.query(
      `SELECT id, name FROM api_token WHERE last4 = $1 AND revoked_at IS NULL`,
      [raw.slice(-4)],
    );
    const { jti } = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());
    await t.request().delete(`/tokens/${minted.id}`).set(bearer(raw)).expect(204);

    const entries = await db.query(
      `SELECT organization_id, project_id, actor_account_id, credential_kind, credential_id,
              action, target_type, target_id, details
         FROM audit_log WHERE target_id = $1 ORDER BY created_at, action`,
      [minted.id],
    );
    expect(entries).toEqual([
      {
        organization_id: ada.organizationId,
        project_id: null,
        actor_account_id: ada.accountId,
        credential_kind: 'jwt',
        credential_id: jti,
        action: 'tokens.create',
        target_type: 'api_token',
        target_id: minted.id,
        details: { name: minted.name, kind: 'api', scopes: ['projects:read', 'tokens:*'] },
      },
      {
        organization_id: ada.organizationId,
        project_id: null,
        actor_account_id: ada.accountId,
        credential_kind: 'api_token',
        credential_id: minted.id,
        action: 'tokens.revoke',
        target_type: 'api_token',
        target_id: minted.id,
        details: { name: minted.name, kind: 'api', owner_account_id: ada.accountId },
      },
    ]);

    const ingest = await t
      .request()
      .post(`/projects/${projectId}/alert_ingest_tokens`)
      .set(bearer(jwt))
      .send({})
      .expect(201);
    const [ingestEntry] = await db.query(
      `SELECT project_id, action, details FROM audit_log WHERE target_id = $1`,
      [ingest.body.data.token_id],
    );
    expect(ingestEntry).toEqual({
      project_id: projectId,
      action: 'tokens.create',
      details: { name: 'Alertmanager ingest', kind: 'ingest', scopes: ['alerts:write'] },
    });
  });
});
