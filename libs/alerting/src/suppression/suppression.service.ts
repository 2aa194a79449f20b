import { Injectable } from '@nestjs/common';
import { decideSuppressions, type Suppression } from './suppression.js';
import { SuppressionRepository } from './suppression.repository.js';

export type { Suppression } from './suppression.js';

/** Whether alerts notify anyone at a moment: silences of them, maintenance windows of the project. */
@Injectable()
export class SuppressionService {
  constructor(private readonly suppression: SuppressionRepository) {}

  /**
   * The alerts of `alerts` suppressed at `at` (absent: not suppressed): an active silence of
   * the alert, else an active maintenance window of the project whose matchers all pass (no
   * matchers: every alert). Two queries, however many alerts.
   */
  async evaluate(
    projectId: string,
    alerts: ReadonlyArray<{ id: string; labels: Record<string, string> }>,
    at: Date,
  ): Promise<Map<string, Suppression>> {
    if (alerts.length === 0) return new Map();
    const [silences, windows] = await Promise.all([
      this.suppression.activeSilences(
        projectId,
        alerts.map((a) => a.id),
        at,
      ),
      this.suppression.activeWindows(projectId, at),
    ]);
    return decideSuppressions(alerts, silences, windows);
  }
}
