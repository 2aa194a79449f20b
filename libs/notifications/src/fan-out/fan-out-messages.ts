import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@platform/core';
import { BroadcastsRepository } from '../center/broadcasts.repository.js';
import { PlatformIncidentsRepository } from '../incidents/platform-incidents.repository.js';
import type { NotifyRequest } from '../notify/notify.service.js';
import type { FanOutKind } from './fan-out.repository.js';

/** The notification a fan-out sends, and to whom (null features: every account). */
export interface FanOutMessage {
  request: Omit<NotifyRequest, 'recipients'>;
  features: string[] | null;
}

/**
 * What each kind of fan-out says, read from its subject when a page runs. Every page of a
 * fan-out carries one idempotency key, so a page run again notifies nobody twice in-app.
 */
@Injectable()
export class FanOutMessages {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly incidents: PlatformIncidentsRepository,
    private readonly broadcasts: BroadcastsRepository,
  ) {}

  /** null when the subject is gone (nothing is left to announce). */
  async of(kind: FanOutKind, subjectId: string): Promise<FanOutMessage | null> {
    return kind === 'broadcast' ? this.broadcast(subjectId) : this.incident(kind, subjectId);
  }

  private async incident(kind: FanOutKind, id: string): Promise<FanOutMessage | null> {
    const incident = await this.incidents.find(id);
    if (!incident) return null;
    const resolved = kind === 'incident_resolved';
    const link = `${this.config.publicUrl}/broadcasts/active`;
    const subject = `${resolved ? 'Resolved' : 'Platform incident'}: ${incident.title}`;
    return {
      features: incident.affectedFeatures,
      request: {
        category: 'platform_incident',
        eventType: resolved ? 'resolved' : 'opened',
        organizationId: null,
        payload: {
          incident_id: incident.id,
          title: incident.title,
          body: incident.body,
          severity: incident.severity,
          affected_features: incident.affectedFeatures,
          status: resolved ? 'resolved' : 'open',
          opened_at: incident.openedAt.toISOString(),
          resolved_at: resolved ? (incident.resolvedAt?.toISOString() ?? null) : null,
          link,
        },
        email: {
          subject,
          text: [
            resolved ? 'This platform incident is resolved.' : incident.body,
            '',
            `Severity: ${incident.severity}`,
            `Affected features: ${incident.affectedFeatures?.join(', ') ?? 'all'}`,
            '',
            link,
          ].join('\n'),
        },
        idempotencyKey: `${kind}/${incident.id}`,
      },
    };
  }

  private async broadcast(id: string): Promise<FanOutMessage | null> {
    const broadcast = await this.broadcasts.find(id);
    if (!broadcast) return null;
    return {
      features: null,
      request: {
        category: 'broadcast',
        eventType: 'published',
        organizationId: null,
        payload: {
          broadcast_id: broadcast.id,
          title: broadcast.title,
          body: broadcast.body,
          severity: broadcast.severity,
          published_at: broadcast.publishedAt.toISOString(),
        },
        email: { subject: broadcast.title, text: broadcast.body },
        idempotencyKey: `broadcast/${broadcast.id}`,
      },
    };
  }
}
