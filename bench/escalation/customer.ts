import type { TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';

const PASSWORD = 'escalation bench password 1234';

/** An organization set up to receive alerts, and its org admins (all of them). */
export interface AlertCustomer {
  organizationId: string;
  projectId: string;
  ingestToken: string;
  /** The owner first. */
  adminIds: string[];
}

interface Answer {
  status: number;
  headers: Headers;
  body: { data?: Record<string, unknown> & { id?: string } };
}

async function call(
  baseUrl: string,
  method: string,
  path: string,
  jwt: string | null,
  body?: unknown,
): Promise<Answer> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(jwt ? { authorization: `Bearer ${jwt}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : {} };
}

/**
 * A customer as the soak bench sets one up, through the public API: the owner signs up with
 * the legal consent and logs in, creates a project with the alerts capability, an alert route
 * that takes every alert and notifies the org admins (the route's in-app target, whose
 * category, alert_escalation, also sends e-mail at once) and an ingest token. The route names
 * no escalation chain, so its alerts open no escalations. Two shortcuts in SQL: the owner's
 * address is marked verified (the verification e-mail is not what is measured) and the other
 * `admins - 1` admins are inserted as verified accounts with an admin membership. Every login
 * is `<name>@<domain>`, so e-mails to the customer are told apart by their domain.
 */
export async function alertCustomer(
  t: TestApp,
  name: string,
  domain: string,
  admins: number,
): Promise<AlertCustomer> {
  const url = t.baseUrl!;
  const db = t.get(DataSource);
  const expect = async (
    status: number,
    what: string,
    method: string,
    path: string,
    jwt: string | null,
    body?: unknown,
  ) => {
    const answer = await call(url, method, path, jwt, body);
    if (answer.status !== status)
      throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
    return answer;
  };

  const consent: Record<string, unknown> = {};
  for (const doc of ['agb', 'nutzungsbedingungen', 'datenschutz']) {
    const published = (await expect(200, 'legal', 'GET', `/legal/${doc}`, null)).body.data!;
    consent[`legal_${doc}_version`] = published.version;
    consent[`legal_${doc}_hash`] = published.content_hash;
  }
  const login = `owner@${domain}`;
  await expect(201, 'signup', 'POST', '/create-account', null, {
    login,
    name: 'Owner',
    password: PASSWORD,
    'password-confirm': PASSWORD,
    organization_name: name,
    ...consent,
  });
  await db.query('UPDATE account SET email_verified_at = now() WHERE login = $1', [login]);
  const session = await expect(200, 'login', 'POST', '/login', null, { login, password: PASSWORD });
  const jwt = session.headers.get('authorization')!.replace(/^Bearer /, '');
  const me = (await expect(200, 'me', 'GET', '/accounts/me', jwt)).body.data!;
  const organizationId = (me.memberships as Array<{ organization_id: string }>)[0].organization_id;

  const others: Array<{ id: string }> = await db.query(
    `INSERT INTO account (login, login_key, name, email_verified_at)
     SELECT 'admin-' || i || '@' || $2, 'admin-' || i || '@' || $2, 'Admin ' || i, now()
       FROM generate_series(1, $1::int) i
     RETURNING id`,
    [Math.max(0, admins - 1), domain],
  );
  await db.query(
    `INSERT INTO membership (organization_id, account_id, role)
     SELECT $1, id, 'admin' FROM unnest($2::uuid[]) AS id`,
    [organizationId, others.map((o) => o.id)],
  );

  const project = await expect(
    201,
    'project',
    'POST',
    `/organizations/${organizationId}/projects`,
    jwt,
    { name: 'production' },
  );
  const projectId = project.body.data!.id!;
  await expect(
    200,
    'alerts grant',
    'PUT',
    `/organizations/${organizationId}/projects/${projectId}/feature-grants/alerts`,
    jwt,
    { approved_configuration: { allowed_kinds: null } },
  );
  const route = await expect(201, 'route', 'POST', `/projects/${projectId}/alert_routes`, jwt, {
    name: 'Everything to the admins',
    priority: 10,
    matchers: [],
    in_app_target_type: 'org_admins',
  });
  if (route.body.data!.escalation_chain_id !== null)
    throw new Error('the route names an escalation chain');
  const minted = await expect(
    201,
    'ingest token',
    'POST',
    `/projects/${projectId}/alert_ingest_tokens`,
    jwt,
    { name: 'alertmanager' },
  );
  return {
    organizationId,
    projectId,
    ingestToken: String(minted.body.data!.token),
    adminIds: [String(me.id), ...others.map((o) => o.id)],
  };
}

/** A new firing alert of an Alertmanager payload. */
export function firingAlert(alertname: string, fingerprint: string, summary: string) {
  return {
    status: 'firing',
    labels: { alertname, severity: 'critical', job: 'node', instance: fingerprint },
    annotations: { summary },
    startsAt: new Date().toISOString(),
    endsAt: '0001-01-01T00:00:00Z',
    generatorURL: 'http://prometheus:9090/graph',
    fingerprint,
  };
}

/**
 * POSTs an Alertmanager webhook payload (version 4) to the project's ingest endpoint with the
 * ingest token; answers when the request started and when the answer was read (epoch ms).
 */
export async function ingest(
  t: TestApp,
  customer: AlertCustomer,
  alerts: ReadonlyArray<ReturnType<typeof firingAlert>>,
): Promise<{ startedAt: number; answeredAt: number; processed: number }> {
  const body = JSON.stringify({
    version: '4',
    groupKey: '{}:{job="node"}',
    truncatedAlerts: 0,
    status: 'firing',
    receiver: 'platform-alerts',
    groupLabels: { job: 'node' },
    commonLabels: { job: 'node' },
    commonAnnotations: {},
    externalURL: 'http://alertmanager:9093',
    alerts,
  });
  const startedAt = Date.now();
  const res = await fetch(`${t.baseUrl}/projects/${customer.projectId}/alerts`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${customer.ingestToken}`,
    },
    body,
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  const answeredAt = Date.now();
  if (res.status !== 200) throw new Error(`ingest: ${res.status} ${text.slice(0, 300)}`);
  const processed = Number((JSON.parse(text) as { data: { processed: number } }).data.processed);
  return { startedAt, answeredAt, processed };
}
