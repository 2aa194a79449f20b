import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import type { EntityManager } from 'typeorm';
import { alertingNotFound } from '../alerting-exception.js';
import type { IngestChanges } from '../ingest/alert-ingest.repository.js';
import { AlertIngestService } from '../ingest/alert-ingest.service.js';
import { heartbeatAlert } from './heartbeat-alerts.js';
import { HeartbeatPingUrls } from './heartbeat-ping-urls.js';
import type { CreateHeartbeatBody, UpdateHeartbeatBody } from './heartbeats.dto.js';
import { type HeartbeatResponseDto, heartbeatView } from './heartbeats.openapi.js';
import { type HeartbeatRow, HeartbeatsRepository } from './heartbeats.repository.js';

const NO_CHANGES: IngestChanges = { fired: [], resolved: [] };

/**
 * Heartbeat monitors of a project (scope resource `heartbeats`). A heartbeat is `pending`
 * until its first ping, then `up`; when interval plus grace pass without a ping the worker's
 * sweep turns it `down` and fires its alert (see HeartbeatSweepProcessor), which the next
 * ping resolves. While it is down, PATCH carries new labels and name over to the firing alert
 * and DELETE resolves it: no alert is left firing for a heartbeat that is gone.
 */
@Injectable()
export class HeartbeatsService {
  constructor(
    private readonly clock: Clock,
    private readonly heartbeats: HeartbeatsRepository,
    private readonly pingUrls: HeartbeatPingUrls,
    private readonly ingestion: AlertIngestService,
  ) {}

  async list(projectId: string): Promise<HeartbeatResponseDto[]> {
    return (await this.heartbeats.list(projectId)).map((row) => this.view(row));
  }

  async show(projectId: string, id: string): Promise<HeartbeatResponseDto> {
    const row = await this.heartbeats.find(projectId, id);
    if (!row) throw alertingNotFound('Heartbeat');
    return this.view(row);
  }

  async create(projectId: string, body: CreateHeartbeatBody): Promise<HeartbeatResponseDto> {
    const row = await this.heartbeats.create(
      projectId,
      {
        name: body.name.trim(),
        intervalSeconds: body.interval_seconds,
        graceSeconds: body.grace_seconds ?? 0,
        labels: body.labels ?? {},
      },
      this.pingUrls.newNonce(),
      this.clock.now(),
    );
    return this.view(row);
  }

  async update(
    projectId: string,
    id: string,
    body: UpdateHeartbeatBody,
  ): Promise<HeartbeatResponseDto> {
    const now = this.clock.now();
    const { row, changes } = await this.heartbeats.transaction(async (manager) => {
      const current = await this.heartbeats.find(projectId, id, manager);
      if (!current) throw alertingNotFound('Heartbeat');
      const updated = await this.heartbeats.update(
        manager,
        id,
        {
          name: body.name?.trim() ?? current.name,
          intervalSeconds: body.interval_seconds ?? current.interval_seconds,
          graceSeconds: body.grace_seconds ?? current.grace_seconds,
          labels: body.labels === undefined ? current.labels : (body.labels ?? {}),
        },
        now,
      );
      const alerted =
        updated.status === 'down' ? await this.ingest(manager, updated, 'firing', now) : NO_CHANGES;
      return { row: updated, changes: alerted };
    });
    await this.ingestion.dispatch(projectId, changes);
    return this.view(row);
  }

  async delete(projectId: string, id: string): Promise<void> {
    const now = this.clock.now();
    const changes = await this.heartbeats.transaction(async (manager) => {
      const current = await this.heartbeats.find(projectId, id, manager);
      if (!current) throw alertingNotFound('Heartbeat');
      const resolved =
        current.status === 'down'
          ? await this.ingest(manager, current, 'resolved', now)
          : NO_CHANGES;
      await this.heartbeats.delete(manager, id);
      return resolved;
    });
    await this.ingestion.dispatch(projectId, changes);
  }

  /** A new ping URL; the previous one answers 404 from now on. */
  async rotatePingUrl(projectId: string, id: string): Promise<HeartbeatResponseDto> {
    const row = await this.heartbeats.rotate(
      projectId,
      id,
      this.pingUrls.newNonce(),
      this.clock.now(),
    );
    if (!row) throw alertingNotFound('Heartbeat');
    return this.view(row);
  }

  /** Ingests the heartbeat's alert inside `manager`'s transaction; the caller dispatches. */
  async ingest(
    manager: EntityManager,
    heartbeat: HeartbeatRow,
    status: 'firing' | 'resolved',
    at: Date,
  ): Promise<IngestChanges> {
    const { changes, errors } = await this.ingestion.ingestWithin(manager, heartbeat.project_id, [
      heartbeatAlert(heartbeat, status, at),
    ]);
    // The name and labels passed validation; an alert built from them is always valid.
    if (errors.length > 0) throw new Error(`heartbeat ${heartbeat.id}: ${errors[0].message}`);
    return changes;
  }

  private view(row: HeartbeatRow): HeartbeatResponseDto {
    return heartbeatView(row, this.pingUrls.url(row));
  }
}
