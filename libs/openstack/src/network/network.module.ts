import { Module } from '@nestjs/common';
import { OpenStackCoreModule } from '../openstack-core.module.js';
import { FloatingIpsController } from './floating-ips.controller.js';
import { NetworksController } from './networks.controller.js';
import { ProjectNeutron } from './neutron.js';
import { RouterInterfacesService } from './router-interfaces.service.js';
import { RoutersController } from './routers.controller.js';
import { SecurityGroupRulesService } from './security-group-rules.service.js';
import { SecurityGroupsController } from './security-groups.controller.js';

/** Security groups, networks, subnets, ports, routers and floating IPs (Neutron). */
@Module({
  imports: [OpenStackCoreModule],
  controllers: [
    SecurityGroupsController,
    NetworksController,
    RoutersController,
    FloatingIpsController,
  ],
  providers: [ProjectNeutron, SecurityGroupRulesService, RouterInterfacesService],
})
export class NetworkModule {}
