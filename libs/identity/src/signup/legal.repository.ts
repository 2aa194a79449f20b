import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { LegalConsent, LegalDocument } from '../entities.js';

export const LEGAL_DOC_TYPES = ['agb', 'nutzungsbedingungen', 'datenschutz'] as const;
export type LegalDocType = (typeof LEGAL_DOC_TYPES)[number];

@Injectable()
export class LegalRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The newest version of each document type. */
  current(manager: EntityManager = this.dataSource.manager): Promise<LegalDocument[]> {
    return manager
      .getRepository(LegalDocument)
      .createQueryBuilder('d')
      .distinctOn(['d.docType'])
      .orderBy('d.docType')
      .addOrderBy('d.version', 'DESC')
      .getMany();
  }

  async currentOf(docType: string): Promise<LegalDocument | null> {
    return (await this.current()).find((d) => d.docType === docType) ?? null;
  }

  async recordConsent(
    manager: EntityManager,
    accountId: string,
    documents: LegalDocument[],
    now: Date,
  ): Promise<void> {
    await manager.getRepository(LegalConsent).insert(
      documents.map((d) => ({
        accountId,
        docType: d.docType,
        version: d.version,
        contentHash: d.contentHash,
        acceptedAt: now,
      })),
    );
  }
}
