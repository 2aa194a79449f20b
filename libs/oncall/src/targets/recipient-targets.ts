import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OnCallResolver } from '../rosters/on-call-resolver.js';

/**
 * Whom a target names. Alert routes and escalation steps both name their recipients with these
 * (each maps its own public values onto them).
 */
export const TARGET_KINDS = [
  'roster_on_call',
  'roster_members',
  'member',
  'role',
  'org_admins',
  'phone_contacts',
  'none',
] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

export interface RecipientTarget {
  kind: TargetKind;
  /** roster_on_call, roster_members and phone_contacts */
  rosterId: string | null;
  /** member */
  memberId: string | null;
  /** role: `Admin` or `Member` */
  role: string | null;
}

/** A target to resolve, in the organization that owns it. */
export interface TargetRequest {
  organizationId: string;
  target: RecipientTarget;
}

/** One recipient. Contacts have no account: they are reached by phone and SMS only. */
export type Recipient =
  { kind: 'account'; accountId: string } | { kind: 'contact'; label: string; phoneNumber: string };

interface Membership {
  organization_id: string;
  account_id: string;
  role: string;
}

/**
 * Who targets reach at a given time, batched: the rosters and memberships of any number of
 * targets are read in a constant number of queries (due steps of thousands of escalations
 * resolve at once). Kinds:
 * - roster_on_call: the roster's on-call account (override, rotation, absence fallback);
 * - roster_members: every member of the roster, in rotation order;
 * - member: that account;
 * - role: `Admin`, the organization's admins; `Member`, every member who is not an admin (the
 *   spec's two roles: organization admins, and everyone else);
 * - org_admins: the organization's admins;
 * - phone_contacts: the roster's external phone contacts;
 * - none: nobody.
 * Accounts appear once per target, only while they hold a membership of the organization; a
 * target whose roster or member was deleted reaches nobody.
 */
@Injectable()
export class TargetResolver {
  constructor(
    private readonly dataSource: DataSource,
    private readonly rosters: OnCallResolver,
  ) {}

  async resolve(requests: readonly TargetRequest[], at: Date): Promise<Recipient[][]> {
    if (requests.length === 0) return [];
    const rosterIds = (kind: TargetKind) => [
      ...new Set(
        requests
          .filter((r) => r.target.kind === kind && r.target.rosterId)
          .map((r) => r.target.rosterId!),
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
      this.rosters.onCall(rosterIds('roster_on_call'), at),
      this.rosters.members(rosterIds('roster_members')),
      this.rosters.phoneContacts(rosterIds('phone_contacts')),
    ]);
    const byOrganization = new Map<string, Membership[]>();
    for (const m of memberships) {
      const list = byOrganization.get(m.organization_id) ?? [];
      list.push(m);
      byOrganization.set(m.organization_id, list);
    }

    return requests.map(({ organizationId, target }): Recipient[] => {
      const organization = byOrganization.get(organizationId) ?? [];
      const isMember = new Set(organization.map((m) => m.account_id));
      const accounts = (ids: readonly string[]): Recipient[] =>
        [...new Set(ids)]
          .filter((id) => isMember.has(id))
          .map((accountId) => ({ kind: 'account', accountId }));
      const withRole = (admin: boolean) =>
        organization.filter((m) => (m.role === 'admin') === admin).map((m) => m.account_id);
      const roster = target.rosterId;
      switch (target.kind) {
        case 'roster_on_call':
          return accounts(roster ? (onCall.get(roster) ?? []) : []);
        case 'roster_members':
          return accounts(roster ? (members.get(roster) ?? []) : []);
        case 'member':
          return accounts(target.memberId ? [target.memberId] : []);
        case 'role':
          if (target.role === 'Admin') return accounts(withRole(true));
          if (target.role === 'Member') return accounts(withRole(false));
          return [];
        case 'org_admins':
          return accounts(withRole(true));
        case 'phone_contacts':
          return (roster ? (contacts.get(roster) ?? []) : []).map((c) => ({
            kind: 'contact',
            label: c.label,
            phoneNumber: c.phoneNumber,
          }));
        case 'none':
          return [];
      }
    });
  }
}
