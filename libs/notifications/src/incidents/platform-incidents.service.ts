import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { DataSource } from 'typeorm';
import { FanOuts } from '../fan-out/fan-outs.js';
import {
  invalid,
  NotificationsErrorCode,
  NotificationsException,
} from '../notifications-exception.js';
import type {
  CreatePlatformIncidentBody,
  PlatformIncidentResponseDto,
  UpdatePlatformIncidentBody,
} from './platform-incidents.dto.js';
import {
  type PlatformIncident,
  PlatformIncidentsRepository,
} from './platform-incidents.repository.js';

export const incidentView = (i: PlatformIncident): PlatformIncidentResponseDto => ({
  id: i.id,
  title: i.title,
  body: i.body,
  severity: i.severity,
  affected_features: i.affectedFeatures,
  status: i.resolvedAt ? 'resolved' : 'open',
  opened_at: i.openedAt,
  resolved_at: i.resolvedAt,
  updated_at: i.updatedAt,
});

/**
 * Platform incidents declared by platform admins. Opening one and resolving it each start a
 * fan-out (FanOuts) in the same transaction, so an incident never exists unannounced.
 */
@Injectable()
export class PlatformIncidentsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly incidents: PlatformIncidentsRepository,
    private readonly fanOuts: FanOuts,
  ) {}

  async open(body: CreatePlatformIncidentBody, createdBy: string) {
    const features = body.affected_features ?? null;
    if (features) await this.assertKnownFeatures(features);
    const now = this.clock.now();
    const { incident, shards } = await this.dataSource.transaction(async (manager) => {
      const created = await this.incidents.create(
        manager,
        {
          title: body.title.trim(),
          body: body.body,
          severity: body.severity,
          affectedFeatures: features,
          createdBy,
        },
        now,
      );
      const ids = await this.fanOuts.create(manager, 'incident_opened', created.id, now);
      return { incident: created, shards: ids };
    });
    await this.fanOuts.kick(shards);
    return incidentView(incident);
  }

  async list() {
    return (await this.incidents.list()).map(incidentView);
  }

  async get(id: string) {
    return incidentView(this.found(await this.incidents.find(id)));
  }

  /** Edits; `resolved: true` resolves it once and announces the resolution. */
  async update(id: string, body: UpdatePlatformIncidentBody) {
    const now = this.clock.now();
    const { incident, shards } = await this.dataSource.transaction(async (manager) => {
      const before = this.found(await this.incidents.find(id, manager));
      const resolving = body.resolved === true && before.resolvedAt === null;
      const after = await this.incidents.update(
        manager,
        id,
        { title: body.title?.trim(), body: body.body, resolve: resolving },
        now,
      );
      const ids = resolving ? await this.fanOuts.create(manager, 'incident_resolved', id, now) : [];
      return { incident: after, shards: ids };
    });
    await this.fanOuts.kick(shards);
    return incidentView(incident);
  }

  private found(incident: PlatformIncident | null): PlatformIncident {
    if (!incident)
      throw new NotificationsException(
        NotificationsErrorCode.NotFound,
        'Platform incident not found',
      );
    return incident;
  }

  private async assertKnownFeatures(features: readonly string[]): Promise<void> {
    const known = await this.incidents.featureKeys();
    const unknown = features.filter((key) => !known.includes(key));
    if (unknown.length > 0)
      throw invalid(NotificationsErrorCode.ValidationFailed, [
        {
          field: 'affected_features',
          message: `unknown feature key(s): ${unknown.join(', ')}; known: ${known.join(', ')}`,
        },
      ]);
  }
}
