import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { CloudRoute } from '@platform/cloud-core';
import { ApiData, type ErrorDoc } from '@platform/core';
import { CurrentPrincipal, type Principal } from '@platform/identity';
import { CreateRgwUserBody, DeleteRgwUserQuery, UpdateRgwUserBody } from './rgw-users.dto.js';
import { RgwUsersService } from './rgw-users.service.js';
import {
  RgwUserResponse,
  RgwUserSummaryResponse,
  RgwUserWithSecretResponse,
} from './rgw-user.view.js';

const NOT_FOUND: ErrorDoc = [404, 'not_found', 'no object-storage user of the project has this id'];
const PURGE_FORBIDDEN: ErrorDoc = [
  403,
  'forbidden',
  'purge_objects=true by anyone but a platform admin',
];
const NAME_TAKEN: ErrorDoc = [
  409,
  'conflict',
  'the organization already has a user of this name (in our table or in RGW)',
];
const OWNS_BUCKETS: ErrorDoc = [409, 'conflict', 'the user still owns buckets (without purge)'];

@ApiTags('object storage')
@Controller('rgw/users')
export class RgwUsersController {
  constructor(private readonly users: RgwUsersService) {}

  @Get()
  @ApiData(RgwUserSummaryResponse, {
    list: true,
    description: "the project's users, from the platform's own table (no live usage)",
  })
  @CloudRoute({ permission: 'rgw:read' })
  list(@CurrentPrincipal() principal: Principal) {
    return this.users.list(principal);
  }

  @Post()
  @ApiData(RgwUserWithSecretResponse, {
    status: 201,
    description: 'the new user with the default quota; its secret key, shown this once',
  })
  @CloudRoute({
    permission: 'rgw:create',
    capability: { feature: 'object_storage', kind: 'user' },
    errors: [NAME_TAKEN],
  })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateRgwUserBody) {
    return this.users.create(principal, body);
  }

  @Get(':id')
  @ApiData(RgwUserResponse, { description: 'the user with its live quota, usage and lock' })
  @CloudRoute({ permission: 'rgw:read', errors: [NOT_FOUND] })
  show(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.users.show(principal, id);
  }

  @Patch(':id')
  @ApiData(RgwUserResponse, { description: 'the user as it stands after the change' })
  @CloudRoute({ permission: 'rgw:update', platformAdmin: true, errors: [NOT_FOUND] })
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: UpdateRgwUserBody,
  ) {
    return this.users.update(principal, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the user is removed from RGW and the platform' })
  @CloudRoute({
    permission: 'rgw:delete',
    errors: [NOT_FOUND, PURGE_FORBIDDEN, OWNS_BUCKETS],
  })
  delete(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: DeleteRgwUserQuery,
  ) {
    return this.users.delete(principal, id, query.purge_objects === 'true');
  }

  @Post(':id/renew_key')
  @HttpCode(200)
  @ApiData(RgwUserWithSecretResponse, {
    description: 'the user with its new key and secret, shown this once; the old key is removed',
  })
  @CloudRoute({ permission: 'rgw:update', errors: [NOT_FOUND] })
  renewKey(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.users.renewKey(principal, id);
  }
}
