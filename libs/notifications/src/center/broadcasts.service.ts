import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { DataSource } from 'typeorm';
import { Broadcast } from '../entities.js';
import { FanOuts } from '../fan-out/fan-outs.js';
import type { CreateBroadcastBody } from './center.dto.js';

/**
 * Publishing a broadcast: the banner (when `banner`), and a `broadcast` notification to every
 * account through a fan-out started in the same transaction.
 */
@Injectable()
export class BroadcastsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly fanOuts: FanOuts,
  ) {}

  async publish(body: CreateBroadcastBody, createdBy: string): Promise<Broadcast> {
    const now = this.clock.now();
    const { broadcast, shards } = await this.dataSource.transaction(async (manager) => {
      const repository = manager.getRepository(Broadcast);
      const saved = await repository.save(
        repository.create({
          title: body.title.trim(),
          body: body.body,
          severity: body.severity,
          banner: body.banner,
          publishedAt: now,
          createdBy,
        }),
      );
      return {
        broadcast: saved,
        shards: await this.fanOuts.create(manager, 'broadcast', saved.id, now),
      };
    });
    await this.fanOuts.kick(shards);
    return broadcast;
  }
}
