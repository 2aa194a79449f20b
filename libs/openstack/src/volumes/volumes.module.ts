import { Module } from '@nestjs/common';
import { OpenStackCoreModule } from '../openstack-core.module.js';
import { VolumesController } from './volumes.controller.js';
import { VolumesService } from './volumes.service.js';

/** Volumes (Cinder, catalog type `block-storage`). */
@Module({
  imports: [OpenStackCoreModule],
  controllers: [VolumesController],
  providers: [VolumesService],
})
export class VolumesModule {}
