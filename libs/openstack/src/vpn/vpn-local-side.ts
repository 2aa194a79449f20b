import { type Neutron, type NeutronObject, PORTS, SUBNETS } from '../network/neutron.js';

/** The owners Neutron gives a router's ports on its subnets (plain, distributed, HA routers). */
const INTERFACE_OWNERS = [
  'network:router_interface',
  'network:router_interface_distributed',
  'network:ha_router_replicated_interface',
];

/**
 * The local sides of gateways, by router id: the subnet of the organization's project each
 * gateway's router has an interface on, made with the gateway. The VPN service does not name
 * it (it has no subnet, as endpoint groups want), so the router's interfaces are what tell.
 * With a router id, that router's only.
 */
export async function localSubnets(
  neutron: Neutron,
  routerId?: string,
): Promise<Map<string, NeutronObject>> {
  const [ports, subnets] = await Promise.all([
    neutron.list(PORTS, routerId ? { device_id: routerId } : undefined),
    neutron.list(SUBNETS),
  ]);
  const sides = new Map<string, NeutronObject>();
  for (const port of ports) {
    if (!INTERFACE_OWNERS.includes(String(port.device_owner))) continue;
    for (const ip of port.fixed_ips as Array<{ subnet_id: string }>) {
      const subnet = subnets.find((s) => s.id === ip.subnet_id);
      if (subnet && !sides.has(String(port.device_id))) sides.set(String(port.device_id), subnet);
    }
  }
  return sides;
}
