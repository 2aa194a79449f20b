import { Body, Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiData, ApiErrors, IdParam } from '@platform/core';
import {
  CSRF_ERROR,
  INTERACTIVE_ONLY_ERROR,
  ORGANIZATION_ACCESS_ERRORS,
  REAUTHENTICATION_ERRORS,
} from '../identity-errors.openapi.js';
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
  @ApiErrors(
    ...ORGANIZATION_ACCESS_ERRORS,
    CSRF_ERROR,
    INTERACTIVE_ONLY_ERROR,
    ...REAUTHENTICATION_ERRORS,
    [
      422,
      'validation_failed',
      'the token fields, or a current_password that is not the password of the account; `details.fields` names each failing field',
    ],
  )
  @Authenticated({ scope: 'organization', permission: 'tokens:create', interactiveOnly: true })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateTokenBody) {
    return this.tokens.mint(principal, organizationOf(principal), body.token, {
      currentPassword: body.current_password,
    });
  }

  @Post('organizations/:org_id/api_tokens')
  @ApiData(MintedTokenResponseDto, { status: 201, description: 'the token, with its secret' })
  @ApiErrors(
    ...ORGANIZATION_ACCESS_ERRORS,
    CSRF_ERROR,
    INTERACTIVE_ONLY_ERROR,
    ...REAUTHENTICATION_ERRORS,
    [
      422,
      'validation_failed',
      'the token fields, or a current_password that is not the password of the account; `details.fields` names each failing field',
    ],
  )
  @Authenticated({ scope: 'organization', permission: 'tokens:create', interactiveOnly: true })
  @ApiOperation({ summary: 'Create an organization token' })
  createForOrganization(@CurrentPrincipal() principal: Principal, @Body() body: CreateTokenBody) {
    return this.tokens.mint(principal, organizationOf(principal), body.token, {
      currentPassword: body.current_password,
    });
  }

  @Get('tokens')
  @ApiData(TokenResponseDto, { list: true, description: 'the tokens of the organization' })
  @ApiErrors(...ORGANIZATION_ACCESS_ERRORS)
  @Authenticated({ scope: 'organization', permission: 'tokens:read' })
  list(@CurrentPrincipal() principal: Principal) {
    return this.tokens.list(organizationOf(principal));
  }

  /** Members manage their own tokens (tokens:create); tokens:delete revokes anyone's. */
  @Delete('tokens/:id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the token is revoked' })
  @ApiErrors(...ORGANIZATION_ACCESS_ERRORS, CSRF_ERROR, [
    404,
    'not_found',
    'no token of the organization has this id',
  ])
  @Authenticated({ scope: 'organization', permission: 'tokens:create' })
  async revoke(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string): Promise<void> {
    await this.tokens.revoke(principal, organizationOf(principal), id);
  }
}
