import { Body, Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { IdParam } from '@platform/core';
import { Authenticated } from '../access/authenticated.decorator.js';
import { CurrentPrincipal, organizationOf, type Principal } from '../access/principal.js';
import { CreateTokenBody } from './tokens.dto.js';
import { TokensService } from './tokens.service.js';

@ApiTags('tokens')
@Controller()
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  @Post('tokens')
  @Authenticated({ scope: 'organization', permission: 'tokens:create', interactiveOnly: true })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateTokenBody) {
    return this.tokens.mint(principal, organizationOf(principal), body.token, {
      currentPassword: body.current_password,
    });
  }

  @Post('organizations/:org_id/api_tokens')
  @Authenticated({ scope: 'organization', permission: 'tokens:create', interactiveOnly: true })
  createForOrganization(@CurrentPrincipal() principal: Principal, @Body() body: CreateTokenBody) {
    return this.tokens.mint(principal, organizationOf(principal), body.token, {
      currentPassword: body.current_password,
    });
  }

  @Get('tokens')
  @Authenticated({ scope: 'organization', permission: 'tokens:read' })
  list(@CurrentPrincipal() principal: Principal) {
    return this.tokens.list(organizationOf(principal));
  }

  /** Members manage their own tokens (tokens:create); tokens:delete revokes anyone's. */
  @Delete('tokens/:id')
  @HttpCode(204)
  @Authenticated({ scope: 'organization', permission: 'tokens:create' })
  async revoke(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string): Promise<void> {
    await this.tokens.revoke(principal, organizationOf(principal), id);
  }
}
