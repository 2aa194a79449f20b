import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiData, ApiErrors, invalidQueryDoc } from '@platform/core';
import { Authenticated } from '../access/authenticated.decorator.js';
import { confinementOf, CurrentPrincipal, type Principal } from '../access/principal.js';
import { ACCOUNT_TOKEN_ERRORS } from '../identity-errors.openapi.js';
import { AccountResponseDto } from '../identity.openapi.js';
import { ShowAccountQuery } from './accounts.dto.js';
import { MembershipsRepository } from '../organizations/memberships.repository.js';

@ApiTags('accounts')
@Controller('accounts')
export class AccountsController {
  constructor(private readonly memberships: MembershipsRepository) {}

  /**
   * Every membership (a static token's own organization's only) and the organization this
   * request resolves to (null when ambiguous). A malformed `organization_id` answers 422
   * naming it rather than resolving to nothing.
   */
  @Get('me')
  @ApiData(AccountResponseDto, { description: 'the account with its memberships' })
  @ApiErrors(...ACCOUNT_TOKEN_ERRORS, invalidQueryDoc('`organization_id` not a uuid'))
  @Authenticated({ scope: 'account', scopeResource: 'organization', scopeLevel: 'read' })
  @ApiOperation({ summary: 'Show my account' })
  async me(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ShowAccountQuery,
  ): Promise<AccountResponseDto> {
    const requested = query.organization_id;
    const confinedTo = confinementOf(principal);
    const memberships = (await this.memberships.listForAccount(principal.account.id)).filter(
      (m) => !confinedTo || m.organization_id === confinedTo,
    );
    const current = principal.token
      ? principal.token.organizationId
      : requested
        ? (memberships.find((m) => m.organization_id === requested)?.organization_id ?? null)
        : memberships.length === 1
          ? memberships[0].organization_id
          : null;
    const { account } = principal;
    return {
      id: account.id,
      login: account.login,
      name: account.name,
      email_verified_at: account.emailVerifiedAt,
      platform_admin: account.isPlatformAdmin,
      phone_number: account.phoneNumber,
      phone_verified: account.phoneVerifiedAt !== null,
      created_at: account.createdAt,
      memberships: memberships.map((m) => ({
        id: m.id,
        organization_id: m.organization_id,
        organization_name: m.organization_name,
        role: m.role,
        permissions: m.permissions,
      })),
      current_organization_id: current,
    };
  }
}
