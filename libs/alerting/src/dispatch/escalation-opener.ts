/** A notified alert whose winning route names an escalation chain. */
export interface EscalationOpening {
  projectId: string;
  alertId: string;
  /** The firing episode that opens it: at most one instance per episode. */
  firedEventId: string | null;
  routeId: string;
  escalationChainId: string;
}

/**
 * Where dispatch hands over what escalation must act on. `open` is called after the in-app
 * notification and the endpoint fan-out, once per firing episode, inside the dispatch claim's
 * transaction hand-over (a failure retries the job); `resolved` when alerts resolve, to cancel
 * their escalations. The escalation module binds its engine to this token.
 */
export abstract class EscalationOpener {
  abstract open(openings: readonly EscalationOpening[]): Promise<void>;
  abstract resolved(projectId: string, alertIds: readonly string[]): Promise<void>;
}

/**
 * Who a route's `roster` in-app target reaches: per roster id, the accounts on call at `at`.
 * Bound by the escalation module (on-call rosters live there).
 */
export abstract class RosterOnCall {
  abstract onCall(rosterIds: readonly string[], at: Date): Promise<Map<string, string[]>>;
}
