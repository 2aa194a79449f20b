import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import type { EntityManager } from 'typeorm';
import { onCallNotFound, onCallValidation } from '../oncall-exception.js';
import { RosterContactsRepository } from './roster-contacts.repository.js';
import { phoneContactView } from './roster-views.js';
import type { CreatePhoneContactBody, UpdatePhoneContactBody } from './rosters.dto.js';
import { RostersRepository } from './rosters.repository.js';

/**
 * External phone contacts of a roster (people or lines without an account, reached by phone and
 * SMS), ordered by label. Labels are trimmed, 1..100 characters and unique within the roster
 * (exact match); an acknowledgement by phone is attributed to the label, never the number.
 */
@Injectable()
export class RosterContactsService {
  constructor(
    private readonly clock: Clock,
    private readonly rosters: RostersRepository,
    private readonly contacts: RosterContactsRepository,
  ) {}

  async list(projectId: string, rosterId: string) {
    if (!(await this.rosters.find(projectId, rosterId))) throw onCallNotFound('On-call roster');
    return (await this.rosters.phoneContacts(projectId, [rosterId])).map(phoneContactView);
  }

  async show(projectId: string, rosterId: string, contactId: string) {
    return phoneContactView(await this.find(this.rosters.manager, projectId, rosterId, contactId));
  }

  create(projectId: string, rosterId: string, body: CreatePhoneContactBody) {
    return this.rosters.transaction(async (manager) => {
      await this.lock(manager, projectId, rosterId);
      const label = body.label.trim();
      await this.assertLabelFree(manager, projectId, rosterId, label, null);
      const row = await this.contacts.insert(
        manager,
        projectId,
        rosterId,
        { label, phoneNumber: body.phone_number },
        this.clock.now(),
      );
      return phoneContactView(row);
    });
  }

  update(projectId: string, rosterId: string, contactId: string, body: UpdatePhoneContactBody) {
    return this.rosters.transaction(async (manager) => {
      await this.lock(manager, projectId, rosterId);
      const current = await this.find(manager, projectId, rosterId, contactId);
      const label = body.label?.trim() ?? current.label;
      await this.assertLabelFree(manager, projectId, rosterId, label, contactId);
      const row = await this.contacts.update(
        manager,
        projectId,
        rosterId,
        contactId,
        { label, phoneNumber: body.phone_number ?? current.phone_number },
        this.clock.now(),
      );
      return phoneContactView(row);
    });
  }

  async delete(projectId: string, rosterId: string, contactId: string): Promise<void> {
    await this.rosters.transaction(async (manager) => {
      await this.lock(manager, projectId, rosterId);
      if (!(await this.contacts.delete(manager, projectId, rosterId, contactId)))
        throw onCallNotFound('Phone contact');
    });
  }

  private async find(
    manager: EntityManager,
    projectId: string,
    rosterId: string,
    contactId: string,
  ) {
    if (!(await this.rosters.find(projectId, rosterId, manager)))
      throw onCallNotFound('On-call roster');
    const row = await this.contacts.find(manager, projectId, rosterId, contactId);
    if (!row) throw onCallNotFound('Phone contact');
    return row;
  }

  private async assertLabelFree(
    manager: EntityManager,
    projectId: string,
    rosterId: string,
    label: string,
    exceptId: string | null,
  ): Promise<void> {
    if (await this.contacts.labelTaken(manager, projectId, rosterId, label, exceptId))
      throw onCallValidation([
        { field: 'label', messages: ['label is already used by another contact of this roster'] },
      ]);
  }

  private async lock(manager: EntityManager, projectId: string, rosterId: string): Promise<void> {
    if (!(await this.rosters.lock(manager, projectId, rosterId)))
      throw onCallNotFound('On-call roster');
  }
}
