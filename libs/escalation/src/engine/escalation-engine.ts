import { Injectable } from '@nestjs/common';
import { EscalationOpener, type EscalationOpening } from '@platform/alerting';

/** Opens, runs and stops escalation instances. */
@Injectable()
export class EscalationEngine extends EscalationOpener {
  open(openings: readonly EscalationOpening[]): Promise<void> {
    void openings;
    return Promise.resolve();
  }

  resolved(projectId: string, alertIds: readonly string[]): Promise<void> {
    void projectId;
    void alertIds;
    return Promise.resolve();
  }
}
