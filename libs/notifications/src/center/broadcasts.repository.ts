import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Broadcast } from '../entities.js';

export const ACTIVE_BROADCASTS_LIMIT = 10;

@Injectable()
export class BroadcastsRepository {
  constructor(private readonly dataSource: DataSource) {}

  create(fields: Omit<Broadcast, 'id'>): Promise<Broadcast> {
    const repository = this.dataSource.getRepository(Broadcast);
    return repository.save(repository.create(fields));
  }

  /** Published banner broadcasts the account has not dismissed, newest first. */
  active(accountId: string, now: Date): Promise<Broadcast[]> {
    return this.dataSource
      .getRepository(Broadcast)
      .createQueryBuilder('b')
      .where('b.banner AND b.published_at <= :now', { now })
      .andWhere(
        'NOT EXISTS (SELECT 1 FROM broadcast_dismissal d WHERE d.broadcast_id = b.id AND d.account_id = :accountId)',
        { accountId },
      )
      .orderBy('b.published_at', 'DESC')
      .addOrderBy('b.id', 'DESC')
      .limit(ACTIVE_BROADCASTS_LIMIT)
      .getMany();
  }

  /** Idempotent; an unknown broadcast is silently ignored. */
  async dismiss(accountId: string, id: string, now: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO broadcast_dismissal (broadcast_id, account_id, dismissed_at)
       SELECT id, $2, $3 FROM broadcast WHERE id = $1
       ON CONFLICT DO NOTHING`,
      [id, accountId, now],
    );
  }
}
