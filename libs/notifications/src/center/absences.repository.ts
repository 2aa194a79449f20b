import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotificationAbsence } from '../entities.js';

@Injectable()
export class AbsencesRepository {
  constructor(private readonly dataSource: DataSource) {}

  list(accountId: string): Promise<NotificationAbsence[]> {
    return this.dataSource
      .getRepository(NotificationAbsence)
      .find({ where: { accountId }, order: { startsAt: 'ASC', id: 'ASC' } });
  }

  create(
    accountId: string,
    fields: Pick<NotificationAbsence, 'startsAt' | 'endsAt' | 'note'>,
    now: Date,
  ): Promise<NotificationAbsence> {
    const repository = this.dataSource.getRepository(NotificationAbsence);
    return repository.save(repository.create({ ...fields, accountId, createdAt: now }));
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const result = await this.dataSource
      .getRepository(NotificationAbsence)
      .delete({ id, accountId });
    return (result.affected ?? 0) > 0;
  }
}
