import { DynamicModule, Module } from '@nestjs/common';
import { type AppConfig, CoreModule } from '@platform/core';
import { DatabaseModule } from '@platform/database';
import { QueueModule, WorkerRuntimeModule } from '@platform/queue';
import { WorkerProcessorsModule } from './worker-processors.module.js';
import { WorkerWatchersModule } from './worker-watchers.module.js';

/**
 * The background worker: the job processors of every domain module, run by BullMQ, and the
 * watches that turn cluster state into webhook events.
 */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        CoreModule.forRoot(config),
        DatabaseModule,
        QueueModule,
        WorkerRuntimeModule,
        WorkerProcessorsModule,
        WorkerWatchersModule,
      ],
    };
  }
}
