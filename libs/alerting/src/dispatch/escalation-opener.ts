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
