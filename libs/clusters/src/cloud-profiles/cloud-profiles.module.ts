import { Module } from '@nestjs/common';
import { GardenCoreModule } from '../garden-core.module.js';
import { CloudProfilesController } from './cloud-profiles.controller.js';

/** CloudProfiles: list and get. */
@Module({
  imports: [GardenCoreModule],
  controllers: [CloudProfilesController],
})
export class CloudProfilesModule {}
