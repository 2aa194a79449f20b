import { Injectable } from '@nestjs/common';
import { EscalationPagesPruner } from '@platform/alerting';
import { DataSource } from 'typeorm';

/** Escalation pages past the retention, deleted by alerting's daily sweep in bounded batches. */
@Injectable()
export class PageRetentionRepository extends EscalationPagesPruner {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  /**
   * A page still pending is delivery work, whatever its age: only settled ones go, with their
   * delivery records (the delivery_forget trigger).
   */
  async prunePages(cutoff: Date, batch: number): Promise<number> {
    const [, count]: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM escalation_page
        WHERE id IN (SELECT p.id FROM escalation_page p JOIN delivery d ON d.id = p.id
                      WHERE p.created_at < $1 AND d.status <> 'pending' LIMIT $2)`,
      [cutoff, batch],
    );
    return count;
  }
}
