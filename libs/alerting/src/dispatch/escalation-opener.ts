import { Injectable } from '@nestjs/common';

/** A notified alert whose winning route names an escalation chain. */
export interface EscalationOpening {
  projectId: string;
  alertId: string;
  routeId: string;
  escalationChainId: string;
}

/**
 * Where dispatch hands over alerts whose route opens an escalation chain; called after the
 * in-app notification and the endpoint fan-out, once per firing episode. Escalation execution
 * binds its own implementation to this token in the worker module.
 */
export abstract class EscalationOpener {
  abstract open(openings: readonly EscalationOpening[]): Promise<void>;
}

/** Until escalation chains run, a chain on a route opens nothing. */
@Injectable()
export class NoEscalationOpener extends EscalationOpener {
  open(): Promise<void> {
    return Promise.resolve();
  }
}
