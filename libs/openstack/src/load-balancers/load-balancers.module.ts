import { Module } from '@nestjs/common';
import { OpenStackCoreModule } from '../openstack-core.module.js';
import { LoadBalancersController } from './load-balancers.controller.js';
import { LoadBalancersService } from './load-balancers.service.js';

/** Load balancers and their listeners, pools, members and health monitors (Octavia). */
@Module({
  imports: [OpenStackCoreModule],
  controllers: [LoadBalancersController],
  providers: [LoadBalancersService],
})
export class LoadBalancersModule {}
