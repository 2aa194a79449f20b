import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiUpstreamData, UPSTREAM_CONFLICT } from '@platform/cloud-core';
import { CurrentPrincipal, invalidDoc, type Principal } from '@platform/identity';
import { CreateVpnGatewayBody, CreateVpnPeerBody, UpdateVpnPeerBody } from './vpn.dto.js';
import { GATEWAY, GATEWAY_404, PEER, PEER_404, VpnRoute } from './vpn.openapi.js';
import { VpnGatewaysService } from './vpn-gateways.service.js';
import { VpnPeersService } from './vpn-peers.service.js';

@ApiTags('vpn')
@Controller('organizations/:org_id/vpn_gateways')
export class VpnController {
  constructor(
    private readonly gateways: VpnGatewaysService,
    private readonly peers: VpnPeersService,
  ) {}

  @Get()
  @ApiUpstreamData({ list: true, properties: GATEWAY, description: "the organization's gateways" })
  @VpnRoute('read')
  @ApiOperation({ summary: 'List VPN gateways' })
  list(@CurrentPrincipal() principal: Principal) {
    return this.gateways.list(principal);
  }

  @Get(':id')
  @ApiUpstreamData({ properties: GATEWAY, description: 'the gateway with its peers' })
  @VpnRoute('read', GATEWAY_404)
  @ApiOperation({ summary: 'Show VPN gateway' })
  show(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.gateways.show(principal, id);
  }

  @Post()
  @ApiUpstreamData({
    status: 201,
    properties: GATEWAY,
    description:
      'the new gateway, on a router of its own with an external address and a local subnet',
  })
  @VpnRoute(
    'create',
    invalidDoc('name, description, external_network_id or local_cidr'),
    [404, 'not_found', 'no network has the `external_network_id`'],
    UPSTREAM_CONFLICT,
  )
  @ApiOperation({ summary: 'Create VPN gateway' })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateVpnGatewayBody) {
    return this.gateways.create(principal, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({
    description: 'the gateway, its peers, its router and its local subnet and network are deleted',
  })
  @VpnRoute('delete', GATEWAY_404, UPSTREAM_CONFLICT)
  @ApiOperation({ summary: 'Delete VPN gateway' })
  delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.gateways.delete(principal, id);
  }

  @Post(':gateway_id/vpn_peers')
  @ApiUpstreamData({
    status: 201,
    properties: PEER,
    description: 'the new peer (without its pre-shared key)',
  })
  @VpnRoute(
    'create',
    GATEWAY_404,
    invalidDoc('name, peer_address, peer_id, peer_cidrs, psk, mtu, ike or ipsec'),
    UPSTREAM_CONFLICT,
    [409, 'conflict', 'the gateway has no local subnet (made before gateways had one)'],
  )
  createPeer(
    @CurrentPrincipal() principal: Principal,
    @Param('gateway_id') gatewayId: string,
    @Body() body: CreateVpnPeerBody,
  ) {
    return this.peers.create(principal, gatewayId, body);
  }

  @Patch(':gateway_id/vpn_peers/:id')
  @ApiUpstreamData({ properties: PEER, description: 'the changed peer (without its key)' })
  @VpnRoute(
    'update',
    PEER_404,
    invalidDoc('a field of the peer; ike and ipsec cannot change'),
    UPSTREAM_CONFLICT,
  )
  updatePeer(
    @CurrentPrincipal() principal: Principal,
    @Param('gateway_id') gatewayId: string,
    @Param('id') id: string,
    @Body() body: UpdateVpnPeerBody,
  ) {
    return this.peers.update(principal, gatewayId, id, body);
  }

  @Delete(':gateway_id/vpn_peers/:id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the peer, its endpoint groups and policies are deleted' })
  @VpnRoute('delete', PEER_404, UPSTREAM_CONFLICT)
  deletePeer(
    @CurrentPrincipal() principal: Principal,
    @Param('gateway_id') gatewayId: string,
    @Param('id') id: string,
  ) {
    return this.peers.delete(principal, gatewayId, id);
  }
}
