import { Body, Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { ApiData, ApiErrors, IdParam } from '@platform/core';
import { Authenticated } from '../access/authenticated.decorator.js';
import { CurrentPrincipal, organizationOf, type Principal } from '../access/principal.js';
import { MintedTokenResponseDto, TokenResponseDto } from '../identity.openapi.js';
import { CreateTokenBody } from './tokens.dto.js';
import { TokensService } from './tokens.service.js';

@ApiTags('tokens')
@Controller()
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  @Post('tokens')
  @ApiData(MintedTokenResponseDto, { status: 201, description: 'the token, with its secret' })
  @ApiErrors(400, 401, 403, 404, 422)
  @Authenticated({ scope: 'organization', permission: 'tokens:create', interactiveOnly: true })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateTokenBody) {
    return this.tokens.mint(principal, organizationOf(principal), body.token, {
      currentPassword: body.current_password,
    });
  }

  @Post('organizations/:org_id/api_tokens')
  @ApiData(MintedTokenResponseDto, { status: 201, description: 'the token, with its secret' })
  @ApiErrors(400, 401, 403, 404, 422)
  @Authenticated({ scope: 'organization', permission: 'tokens:create', interactiveOnly: true })
  createForOrganization(@CurrentPrincipal() principal: Principal, @Body() body: CreateTokenBody) {
    return this.tokens.mint(principal, organizationOf(principal), body.token, {
      currentPassword: body.current_password,
    });
  }

  @Get('tokens')
  @ApiData(TokenResponseDto, { list: true, description: 'the tokens of the organization' })
  @ApiErrors(401, 403, 404)
  @Authenticated({ scope: 'organization', permission: 'tokens:read' })
  list(@CurrentPrincipal() principal: Principal) {
    return this.tokens.list(organizationOf(principal));
  }

  /** Members manage their own tokens (tokens:create); tokens:delete revokes anyone's. */
  @Delete('tokens/:id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the token is revoked' })
  @ApiErrors(401, 403, 404)
  @Authenticated({ scope: 'organization', permission: 'tokens:create' })
  async revoke(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string): Promise<void> {
    await this.tokens.revoke(principal, organizationOf(principal), id);
  }
}
