import { Module } from '@nestjs/common';
import { OpenStackCoreModule } from '../openstack-core.module.js';
import { ServersController } from './servers.controller.js';
import { ServersService } from './servers.service.js';

/** Servers, images and flavors (Nova, Glance). */
@Module({
  imports: [OpenStackCoreModule],
  controllers: [ServersController],
  providers: [ServersService],
})
export class ComputeModule {}
