import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { OpenStackHttpError, OpenStackSession } from '@platform/openstack-client';
import type { CloudAccess } from './openstack-credentials.js';

export interface CinderVolume {
  id: string;
  name: string | null;
  status: string;
  size: number;
  volume_type?: string | null;
  availability_zone?: string | null;
  snapshot_id?: string | null;
  metadata?: Record<string, string>;
}

export interface CinderSnapshot {
  id: string;
  name: string | null;
  status: string;
  size: number;
  volume_id: string;
  created_at: string;
  metadata?: Record<string, string>;
}

/** Cinder's times carry no zone designator: they are UTC. */
export function cinderTimeMs(value: string): number {
  return Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
}

const isNotFound = (error: unknown) => error instanceof OpenStackHttpError && error.status === 404;

/**
 * The Block Storage (Cinder) v3 calls a snapshot-based backup makes, with the credentials of
 * one Secret. Reads of something gone answer undefined, deletes of something gone succeed.
 */
export class CinderClient {
  constructor(private readonly session: OpenStackSession) {}

  async volume(id: string): Promise<CinderVolume | undefined> {
    try {
      return (await this.call<{ volume: CinderVolume }>('GET', `/volumes/${id}`)).volume;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async volumesNamed(name: string): Promise<CinderVolume[]> {
    const found = await this.session.call<{ volumes: CinderVolume[] }>('block-storage', {
      method: 'GET',
      path: '/volumes/detail',
      query: { name },
    });
    return found.volumes.filter((volume) => volume.name === name);
  }

  async createVolume(request: {
    snapshotId: string;
    name: string;
    size: number;
    volumeType?: string;
    metadata: Record<string, string>;
  }): Promise<CinderVolume> {
    const body = {
      volume: {
        snapshot_id: request.snapshotId,
        name: request.name,
        size: request.size,
        metadata: request.metadata,
        ...(request.volumeType ? { volume_type: request.volumeType } : {}),
      },
    };
    return (await this.call<{ volume: CinderVolume }>('POST', '/volumes', body)).volume;
  }

  async deleteVolume(id: string): Promise<void> {
    await this.remove(`/volumes/${id}`);
  }

  async snapshot(id: string): Promise<CinderSnapshot | undefined> {
    try {
      return (await this.call<{ snapshot: CinderSnapshot }>('GET', `/snapshots/${id}`)).snapshot;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async snapshotsOf(volumeId: string): Promise<CinderSnapshot[]> {
    const found = await this.session.call<{ snapshots: CinderSnapshot[] }>('block-storage', {
      method: 'GET',
      path: '/snapshots/detail',
      query: { volume_id: volumeId },
    });
    return found.snapshots.filter((snapshot) => snapshot.volume_id === volumeId);
  }

  async createSnapshot(request: {
    volumeId: string;
    name: string;
    description: string;
    force: boolean;
    metadata: Record<string, string>;
  }): Promise<CinderSnapshot> {
    const body = {
      snapshot: {
        volume_id: request.volumeId,
        name: request.name,
        description: request.description,
        force: request.force,
        metadata: request.metadata,
      },
    };
    return (await this.call<{ snapshot: CinderSnapshot }>('POST', '/snapshots', body)).snapshot;
  }

  async deleteSnapshot(id: string): Promise<void> {
    await this.remove(`/snapshots/${id}`);
  }

  private call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    return this.session.call<T>('block-storage', { method, path, body });
  }

  private async remove(path: string): Promise<void> {
    try {
      await this.session.call('block-storage', { method: 'DELETE', path });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}

/** Sessions kept at most: one per credentials Secret (and version) in use. */
const KEPT_SESSIONS = 256;

/**
 * Cinder clients per credentials Secret version and region, so a resource's calls reuse one
 * Keystone token (cached until shortly before it expires) rather than authenticate each pass.
 */
@Injectable()
export class CinderClients {
  private readonly sessions = new Map<string, CinderClient>();

  constructor(private readonly clock: Clock) {}

  clientFor(access: CloudAccess): CinderClient {
    const key = `${access.version}|${access.region ?? ''}`;
    let client = this.sessions.get(key);
    if (!client) {
      client = new CinderClient(
        new OpenStackSession({
          credentials: access.credentials,
          scope: access.scope,
          region: access.region,
          clock: this.clock,
        }),
      );
      this.sessions.set(key, client);
      if (this.sessions.size > KEPT_SESSIONS) {
        this.sessions.delete(this.sessions.keys().next().value!);
      }
    }
    return client;
  }
}
