import { Injectable } from '@nestjs/common';
import { RosterOnCall } from '@platform/alerting';

/** An external phone contact of a roster, as paging needs it. */
export interface RosterContact {
  label: string;
  phoneNumber: string;
}

/**
 * Who a roster reaches, batched over many rosters (escalation steps resolve thousands at once).
 * Only accounts that still hold a membership in the roster's organization count.
 */
@Injectable()
export class OnCallResolver extends RosterOnCall {
  /**
   * Per roster id, the account on call at `at` (an array of zero or one): an override covering
   * `at` wins over the rotation (the latest-created override when several overlap); an account
   * with an active absence is skipped for the next member in rotation order; when every member
   * is absent, the scheduled one is paged anyway. A roster without rotation or members maps to
   * [] unless an override covers `at`. Rosters not found are absent from the map.
   */
  onCall(rosterIds: readonly string[], at: Date): Promise<Map<string, string[]>> {
    void rosterIds;
    void at;
    throw new Error('OnCallResolver.onCall is being written');
  }

  /** Per roster id, every member account in rotation order. */
  members(rosterIds: readonly string[]): Promise<Map<string, string[]>> {
    void rosterIds;
    throw new Error('OnCallResolver.members is being written');
  }

  /** Per roster id, its external phone contacts ordered by label. */
  phoneContacts(rosterIds: readonly string[]): Promise<Map<string, RosterContact[]>> {
    void rosterIds;
    throw new Error('OnCallResolver.phoneContacts is being written');
  }
}
