import { Injectable } from '@nestjs/common';
import { CloudAudit } from '@platform/cloud-core';
import type { Principal } from '@platform/identity';
import { forwarded, ProjectNeutron, ROUTERS } from './neutron.js';
import type { AddRouterInterfaceBody } from './routers.dto.js';

/** What Neutron answers about an interface it added or removed. */
export interface RouterInterface {
  /** The router. */
  id: string;
  port_id: string;
  subnet_id: string;
  subnet_ids?: string[];
  network_id?: string;
  [field: string]: unknown;
}

/**
 * A router's interfaces: added on a subnet (Neutron makes a port at the subnet's gateway
 * address) or on a free port, removed by the interface's port.
 */
@Injectable()
export class RouterInterfacesService {
  constructor(
    private readonly neutron: ProjectNeutron,
    private readonly audit: CloudAudit,
  ) {}

  async add(
    principal: Principal,
    routerId: string,
    body: AddRouterInterfaceBody,
  ): Promise<RouterInterface> {
    const neutron = await this.neutron.of(principal);
    const added = await neutron.action<RouterInterface>(
      ROUTERS,
      routerId,
      'add_router_interface',
      forwarded(body),
    );
    await this.audit.record(
      principal,
      'router_interfaces.create',
      { type: 'router_interface', id: added.port_id },
      { router_id: routerId, subnet_id: added.subnet_id },
    );
    return added;
  }

  async remove(principal: Principal, routerId: string, portId: string): Promise<void> {
    const neutron = await this.neutron.of(principal);
    await neutron.action(ROUTERS, routerId, 'remove_router_interface', { port_id: portId });
    await this.audit.record(
      principal,
      'router_interfaces.delete',
      { type: 'router_interface', id: portId },
      { router_id: routerId },
    );
  }
}
