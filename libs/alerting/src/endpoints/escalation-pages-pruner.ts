/**
 * Where the daily retention sweep deletes old escalation pages. Escalation owns the pages and
 * binds this token (its worker module), so alerting does not depend on escalation.
 */
export abstract class EscalationPagesPruner {
  /** Deletes up to `batch` settled pages written before `cutoff`; answers how many. */
  abstract prunePages(cutoff: Date, batch: number): Promise<number>;
}
