import { simpleParser } from 'mailparser';
import type { CapturedMail, SmtpCounter } from '../notifications/smtp-counter.js';

const PASSWORD = 'soak bench password 1234';

/** A member of the soak organization, logged in. */
export interface Member {
  login: string;
  accountId: string;
  role: 'admin' | 'developer';
  jwt: string;
}

export interface Customer {
  organizationId: string;
  projectId: string;
  ingestToken: string;
  members: Member[];
}

interface Answer {
  status: number;
  headers: Headers;
  body: { data?: Record<string, unknown> & { id?: string } };
}

/**
 * A customer's set-up done through the public API only, as a person would: signup with the
 * legal consent, the verification token from the e-mail, invitations accepted from their
 * e-mails, a project with the alerts capability, an escalation chain, a route and an ingest
 * token. The worker must be running (it sends the e-mails) and `smtp` must be its server.
 */
export class CustomerSetup {
  constructor(
    private readonly url: string,
    private readonly smtp: SmtpCounter,
  ) {}

  async run(): Promise<Customer> {
    this.smtp.capture(true);
    try {
      const owner = await this.signUp('owner@soak.example', 'Soak Org');
      const organizationId = await this.organizationOf(owner);
      const members = [owner];
      for (const [login, role] of [
        ['second-admin@soak.example', 'admin'],
        ['dev-1@soak.example', 'developer'],
        ['dev-2@soak.example', 'developer'],
      ] as const) {
        members.push(await this.invite(owner, organizationId, login, role));
      }
      const projectId = await this.alertsProject(owner, organizationId);
      const chainId = await this.escalationChain(owner, projectId);
      await this.expect(201, 'route', 'POST', `/projects/${projectId}/alert_routes`, owner, {
        name: 'Everything',
        priority: 10,
        matchers: [],
        in_app_target_type: 'org_admins',
        escalation_chain_id: chainId,
      });
      const minted = await this.expect(
        201,
        'ingest token',
        'POST',
        `/projects/${projectId}/alert_ingest_tokens`,
        owner,
        { name: 'alertmanager' },
      );
      return { organizationId, projectId, ingestToken: String(minted.data!.token), members };
    } finally {
      this.smtp.capture(false);
    }
  }

  /**
   * Developers are paged first, in-app and by e-mail, 5 s after the alert fired; the admins
   * 35 s after that, so alerts resolved within 40 s end their escalation by resolution and
   * the others by exhaustion.
   */
  private async escalationChain(owner: Member, projectId: string): Promise<string> {
    const chains = `/projects/${projectId}/escalation_chains`;
    const chain = await this.expect(201, 'chain', 'POST', chains, owner, {
      name: 'Soak on-call',
      repeats: 0,
    });
    const steps = `${chains}/${chain.data!.id}/escalation_steps`;
    await this.expect(201, 'step 1', 'POST', steps, owner, {
      delay_seconds: 5,
      target_type: 'role',
      target_role: 'Member',
      channels: ['in_app', 'email'],
    });
    await this.expect(201, 'step 2', 'POST', steps, owner, {
      delay_seconds: 35,
      target_type: 'org_admins',
      channels: ['in_app', 'email'],
    });
    return chain.data!.id!;
  }

  private async alertsProject(owner: Member, organizationId: string): Promise<string> {
    const project = await this.expect(
      201,
      'project',
      'POST',
      `/organizations/${organizationId}/projects`,
      owner,
      { name: 'production' },
    );
    const projectId = project.data!.id!;
    await this.expect(
      200,
      'alerts grant',
      'PUT',
      `/organizations/${organizationId}/projects/${projectId}/feature-grants/alerts`,
      owner,
      { approved_configuration: { allowed_kinds: null } },
    );
    return projectId;
  }

  private async signUp(login: string, organization: string): Promise<Member> {
    const consent: Record<string, unknown> = {};
    for (const doc of ['agb', 'nutzungsbedingungen', 'datenschutz']) {
      const published = await this.expect(200, 'legal', 'GET', `/legal/${doc}`);
      consent[`legal_${doc}_version`] = published.data!.version;
      consent[`legal_${doc}_hash`] = published.data!.content_hash;
    }
    await this.expect(201, 'signup', 'POST', '/create-account', null, {
      login,
      name: 'Owner',
      password: PASSWORD,
      'password-confirm': PASSWORD,
      organization_name: organization,
      ...consent,
    });
    const token = await this.tokenFromMail(login, 'Verification token');
    await this.expect(200, 'verify', 'POST', '/verify-email', null, { token });
    const jwt = await this.login(login);
    const me = await this.call('GET', '/accounts/me', jwt);
    return { login, accountId: me.body.data!.id!, role: 'admin', jwt };
  }

  private async organizationOf(member: Member): Promise<string> {
    const me = await this.call('GET', '/accounts/me', member.jwt);
    const memberships = me.body.data!.memberships as Array<{ organization_id: string }>;
    return memberships[0].organization_id;
  }

  private async invite(
    admin: Member,
    organizationId: string,
    login: string,
    role: Member['role'],
  ): Promise<Member> {
    await this.expect(
      201,
      'invitation',
      'POST',
      `/invitations?organization_id=${organizationId}`,
      admin,
      { email: login, role },
    );
    const token = await this.tokenFromMail(login, 'Invitation token');
    const accepted = await this.expect(200, 'accept', 'PATCH', `/invite/${token}/accept`, null, {
      name: login.split('@')[0],
      password: PASSWORD,
      'password-confirm': PASSWORD,
    });
    return {
      login,
      accountId: String(accepted.data!.account_id),
      role,
      jwt: await this.login(login),
    };
  }

  private async login(login: string): Promise<string> {
    const session = await this.call('POST', '/login', null, { login, password: PASSWORD });
    if (session.status !== 200) throw new Error(`login ${login}: ${session.status}`);
    return session.headers.get('authorization')!.replace(/^Bearer /, '');
  }

  /** The value after `label:` in an e-mail to `to` (parsed once each). */
  private async tokenFromMail(to: string, label: string): Promise<string> {
    const pattern = new RegExp(`${label}: (\\S+)`);
    const deadline = Date.now() + 30_000;
    for (;;) {
      for (const mail of this.smtp.captured.filter((m) => m.to.includes(to))) {
        if (!this.texts.has(mail)) this.texts.set(mail, (await simpleParser(mail.raw)).text ?? '');
        const found = pattern.exec(this.texts.get(mail)!);
        if (found) return found[1];
      }
      await this.smtp.waitForMail(
        (mail) => mail.to.includes(to) && !this.texts.has(mail),
        deadline - Date.now(),
      );
    }
  }

  private readonly texts = new Map<CapturedMail, string>();

  private async expect(
    status: number,
    what: string,
    method: string,
    path: string,
    as: Member | null = null,
    body?: unknown,
  ): Promise<Answer['body']> {
    const answer = await this.call(method, path, as?.jwt ?? null, body);
    if (answer.status !== status)
      throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
    return answer.body;
  }

  private async call(
    method: string,
    path: string,
    jwt: string | null,
    body?: unknown,
  ): Promise<Answer> {
    const res = await fetch(`${this.url}${path}`, {
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
}
