import { Module } from '@nestjs/common';
import { GardenCoreModule } from '../garden-core.module.js';
import { ClustersController } from './clusters.controller.js';
import { ClustersService } from './clusters.service.js';

/** Shoots: create, list, get, delete. */
@Module({
  imports: [GardenCoreModule],
  controllers: [ClustersController],
  providers: [ClustersService],
})
export class ClustersModule {}
