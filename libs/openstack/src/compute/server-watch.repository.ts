import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** How a watched server settled. */
export type ServerWatchOutcome = 'active' | 'error' | 'deleted' | 'expired';

/** A server still in the watch, with the Keystone project it lives in. */
export interface PendingServer {
  server_id: string;
  project_id: string;
  organization_id: string;
  created_at: Date;
  /** Null only if the project's mapping is gone (nothing then reaches the server). */
  keystone_project_id: string | null;
}

/** The openstack_server_watch table: servers created through the platform, until they settle. */
@Injectable()
export class ServerWatchRepository {
  constructor(private readonly dataSource: DataSource) {}

  async record(serverId: string, projectId: string, organizationId: string, at: Date) {
    await this.dataSource.query(
      `INSERT INTO openstack_server_watch (server_id, project_id, organization_id, created_at)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (server_id) DO NOTHING`,
      [serverId, projectId, organizationId, at],
    );
  }

  /** The oldest `limit` servers not settled yet. */
  pending(limit: number): Promise<PendingServer[]> {
    return this.dataSource.query(
      `SELECT w.server_id, w.project_id, w.organization_id, w.created_at, p.keystone_project_id
         FROM openstack_server_watch w
         LEFT JOIN openstack_project p ON p.tenant_kind = 'project' AND p.tenant_id = w.project_id
        WHERE w.settled_at IS NULL
        ORDER BY w.created_at, w.server_id
        LIMIT $1`,
      [limit],
    );
  }

  /** Settles the servers still pending; one settled already keeps its first outcome. */
  async settle(serverIds: readonly string[], outcome: ServerWatchOutcome, at: Date) {
    if (serverIds.length === 0) return;
    await this.dataSource.query(
      `UPDATE openstack_server_watch SET settled_at = $3, outcome = $2
        WHERE server_id = ANY ($1::text[]) AND settled_at IS NULL`,
      [serverIds, outcome, at],
    );
  }

  /** Deletes up to `batch` rows settled before `cutoff`. */
  async prune(cutoff: Date, batch: number): Promise<number> {
    const [, count]: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM openstack_server_watch
        WHERE server_id IN (SELECT server_id FROM openstack_server_watch
                             WHERE settled_at < $1 LIMIT $2)`,
      [cutoff, batch],
    );
    return count;
  }
}
