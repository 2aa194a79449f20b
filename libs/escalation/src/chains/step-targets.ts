import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OnCallResolver, type RosterContact } from '../rosters/on-call-resolver.js';
import type { PageRecipient, StepSnapshot } from './chain-snapshot.js';

/** A step to resolve, in the organization of the escalation's project. */
export interface StepTargetRequest {
  organizationId: string;
  step: StepSnapshot;
}

interface Membership {
  organization_id: string;
  account_id: string;
  role: string;
}

/**
 * Who a step pages at a given time, batched: the rosters and memberships of any number of steps
 * are read in a constant number of queries (due steps of thousands of escalations resolve at
 * once). Targets:
 * - roster_on_call: the roster's on-call account (override, rotation, absence fallback);
 * - roster: every member of the roster, in rotation order;
 * - member: that account, while it holds a membership in the organization;
 * - role: `Admin`, the organization's admins; `Member`, every member who is not an admin;
 * - org_admins: the organization's admins;
 * - phone_contacts: the roster's external phone contacts (reached by phone and SMS only).
 * Accounts appear once per step, only while they are members of the organization; a target
 * whose roster or member was deleted pages nobody.
 */
@Injectable()
export class StepTargetResolver {
  constructor(
    private readonly dataSource: DataSource,
    private readonly rosters: OnCallResolver,
  ) {}

  async resolve(requests: readonly StepTargetRequest[], at: Date): Promise<PageRecipient[][]> {
    if (requests.length === 0) return [];
    const rosterIds = (types: string[]) => [
      ...new Set(
        requests
          .filter((r) => types.includes(r.step.target_type) && r.step.target_roster_id)
          .map((r) => r.step.target_roster_id!),
      ),
    ];
    const organizationIds = [...new Set(requests.map((r) => r.organizationId))];
    const [memberships, onCall, members, contacts] = await Promise.all([
      this.dataSource.query<Membership[]>(
        `SELECT organization_id, account_id, role FROM membership
          WHERE organization_id = ANY ($1::uuid[])
          ORDER BY created_at, account_id`,
        [organizationIds],
      ),
      this.rosters.onCall(rosterIds(['roster_on_call']), at),
      this.rosters.members(rosterIds(['roster'])),
      this.rosters.phoneContacts(rosterIds(['phone_contacts'])),
    ]);
    const byOrganization = new Map<string, Membership[]>();
    for (const m of memberships) {
      const list = byOrganization.get(m.organization_id) ?? [];
      list.push(m);
      byOrganization.set(m.organization_id, list);
    }

    return requests.map(({ organizationId, step }) => {
      const organization = byOrganization.get(organizationId) ?? [];
      const isMember = new Set(organization.map((m) => m.account_id));
      const accounts = (ids: readonly string[]): PageRecipient[] =>
        [...new Set(ids)]
          .filter((id) => isMember.has(id))
          .map((accountId) => ({ kind: 'account', accountId }));
      const admins = () => organization.filter((m) => m.role === 'admin').map((m) => m.account_id);
      const roster = step.target_roster_id;
      switch (step.target_type) {
        case 'roster_on_call':
          return accounts(roster ? (onCall.get(roster) ?? []) : []);
        case 'roster':
          return accounts(roster ? (members.get(roster) ?? []) : []);
        case 'member':
          return accounts(step.target_member_id ? [step.target_member_id] : []);
        case 'role':
          if (step.target_role === 'Admin') return accounts(admins());
          if (step.target_role === 'Member')
            return accounts(
              organization.filter((m) => m.role !== 'admin').map((m) => m.account_id),
            );
          return [];
        case 'org_admins':
          return accounts(admins());
        case 'phone_contacts':
          return (roster ? (contacts.get(roster) ?? []) : []).map((c: RosterContact) => ({
            kind: 'contact' as const,
            label: c.label,
            phoneNumber: c.phoneNumber,
          }));
      }
    });
  }
}
