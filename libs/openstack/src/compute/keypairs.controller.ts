import { Body, Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiUpstreamData, CloudRoute, STRING, UPSTREAM_CONFLICT } from '@platform/cloud-core';
import { NotIdParams } from '@platform/core';
import { CurrentPrincipal, type Principal } from '@platform/identity';
import { CreateKeypairBody, KEYPAIR_NAME, KeypairNameParam } from './keypairs.dto.js';
import { KeypairsService } from './keypairs.service.js';

const KEYPAIR = {
  name: { type: 'string', description: "the keypair's id in paths" },
  public_key: STRING,
  fingerprint: STRING,
  type: { type: 'string', description: '`ssh`' },
};
const REQUIRED = ['name', 'public_key', 'fingerprint'];
const NOT_FOUND_UPSTREAM = [
  404,
  'not_found',
  'the project has no keypair of this name, or the value cannot be a keypair name',
] as const;
const DUPLICATE = [
  UPSTREAM_CONFLICT[0],
  UPSTREAM_CONFLICT[1],
  'the project already has a keypair of this name',
] as const;

/**
 * SSH keypairs (Nova `os-keypairs`). A keypair's id is its name. Creating one needs the
 * openstack kind `server`: keypairs exist only to boot servers, so a project that may not run
 * servers has no use for one.
 */
@ApiTags('cloud: ssh keypairs')
@Controller('cloud')
export class KeypairsController {
  constructor(private readonly keypairs: KeypairsService) {}

  @Get('ssh-keypairs')
  @ApiUpstreamData({
    list: true,
    properties: KEYPAIR,
    required: REQUIRED,
    description: "the project's keypairs (Nova `os-keypairs`); never a private key",
  })
  @CloudRoute({ permission: 'compute:read' })
  list(@CurrentPrincipal() principal: Principal) {
    return this.keypairs.list(principal);
  }

  @Post('ssh-keypairs')
  @HttpCode(201)
  @ApiUpstreamData({
    status: 201,
    properties: {
      ...KEYPAIR,
      private_key: {
        type: 'string',
        description:
          'only when the cloud generated the keypair (no `public_key` sent): shown this once, kept nowhere',
      },
    },
    required: REQUIRED,
    description: 'the new keypair as Nova answers it',
  })
  @CloudRoute({
    permission: 'compute:create',
    capability: { feature: 'openstack', kind: 'server' },
    errors: [DUPLICATE],
  })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateKeypairBody) {
    return this.keypairs.create(principal, body);
  }

  @Delete('ssh-keypairs/:id')
  @HttpCode(204)
  @NotIdParams('id')
  @ApiParam({
    name: 'id',
    description: "the keypair's name",
    schema: { type: 'string', pattern: KEYPAIR_NAME.source },
  })
  @ApiNoContentResponse({ description: 'Nova deleted the keypair' })
  @CloudRoute({ permission: 'compute:delete', errors: [NOT_FOUND_UPSTREAM] })
  delete(@CurrentPrincipal() principal: Principal, @KeypairNameParam('id') name: string) {
    return this.keypairs.delete(principal, name);
  }
}
