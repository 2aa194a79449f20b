import { Module } from '@nestjs/common';
import { OpenStackCoreModule } from '../openstack-core.module.js';
import { KeypairsController } from './keypairs.controller.js';
import { KeypairsService } from './keypairs.service.js';
import { ServerWatchRepository } from './server-watch.repository.js';
import { ServersController } from './servers.controller.js';
import { ServersService } from './servers.service.js';

/** Servers, images, flavors and SSH keypairs (Nova, Glance). */
@Module({
  imports: [OpenStackCoreModule],
  controllers: [ServersController, KeypairsController],
  providers: [ServersService, KeypairsService, ServerWatchRepository],
})
export class ComputeModule {}
