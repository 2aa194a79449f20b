import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';
import { LEVELS, type PermissionOverrides, ROLES, type Role } from './access/permissions.js';
import type { TokenKind } from './entities.js';

/*
 * The response bodies of the identity routes (the `data` of the success envelope). The view
 * functions return these types; the services never answer instances of them.
 */

/** Category → levels granted or taken beyond the role's defaults. */
const PERMISSIONS: ApiPropertyOptions = {
  type: 'object',
  additionalProperties: { type: 'array', items: { type: 'string', enum: [...LEVELS] } },
};

export class MessageResponseDto {
  @ApiProperty({ description: 'what happened, for people' })
  success!: string;
}

export class EmailVerifiedResponseDto {
  @ApiProperty({ enum: [true] })
  verified!: true;
}

export class InvitationDeclinedResponseDto {
  @ApiProperty({ enum: [true] })
  declined!: true;
}

export class LegalDocumentResponseDto {
  @ApiProperty() doc_type!: string;
  @ApiProperty({ type: 'integer' }) version!: number;
  @ApiProperty() title!: string;
  @ApiProperty() content!: string;
  @ApiProperty({ description: 'SHA-256 of the content, hex' }) content_hash!: string;
  @ApiProperty({ type: String, format: 'date-time' }) published_at!: Date;
}

/** A session handed out by a login or a password change; the JWT is in the Authorization header. */
export class SessionResponseDto {
  @ApiProperty({ format: 'uuid' }) account_id!: string;
  @ApiProperty() login!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, format: 'date-time' }) expires_at!: Date;
}

export class AccountMembershipDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) organization_id!: string;
  @ApiProperty() organization_name!: string;
  @ApiProperty({ enum: ROLES }) role!: Role;
  @ApiProperty(PERMISSIONS) permissions!: PermissionOverrides;
}

export class AccountResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() login!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  email_verified_at!: Date | null;
  @ApiProperty() platform_admin!: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'E.164' })
  phone_number!: string | null;
  @ApiProperty() phone_verified!: boolean;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: Date;
  @ApiProperty({ type: [AccountMembershipDto] }) memberships!: AccountMembershipDto[];
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'the organization this request resolves to; null when ambiguous',
  })
  current_organization_id!: string | null;
}

export class OrganizationResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ROLES, description: "the caller's role" }) role!: string;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: Date;
}

export class ProjectResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) organization_id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: Date;
}

export class MembershipResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) organization_id!: string;
  @ApiProperty({ format: 'uuid' }) account_id!: string;
  @ApiProperty() login!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ROLES }) role!: Role;
  @ApiProperty(PERMISSIONS) permissions!: PermissionOverrides;
  @ApiProperty({
    ...PERMISSIONS,
    description: 'the role with its overrides applied',
  })
  effective_permissions!: Record<string, string[]>;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: Date;
}

export class TokenResponseDto {
  @ApiProperty({ format: 'uuid' }) token_id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: [String], example: ['alerts:read'] }) scopes!: string[];
  @ApiProperty({ description: 'the last four characters of the secret' }) last4!: string;
  @ApiProperty({ enum: ['api', 'ingest'] }) kind!: TokenKind;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) project_id!: string | null;
  @ApiProperty({ format: 'uuid' }) account_id!: string;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: Date;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_used_at!: Date | null;
}

export class MintedTokenResponseDto extends TokenResponseDto {
  @ApiProperty({ description: 'the secret, shown this once' }) token!: string;
}

export class InvitationResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) organization_id!: string;
  @ApiProperty() email!: string;
  @ApiProperty({ enum: ROLES }) role!: Role;
  @ApiProperty({ type: String, format: 'date-time' }) expires_at!: Date;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: Date;
}

export class InvitationDetailsResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) organization_id!: string;
  @ApiProperty() organization_name!: string;
  @ApiProperty() email!: string;
  @ApiProperty({ enum: ROLES }) role!: Role;
  @ApiProperty({ type: String, format: 'date-time' }) expires_at!: Date;
  @ApiProperty({ description: 'sign in (true) or sign up through the invitation (false)' })
  account_exists!: boolean;
}

export class InvitationAcceptedResponseDto {
  @ApiProperty({ format: 'uuid' }) organization_id!: string;
  @ApiProperty({ format: 'uuid' }) account_id!: string;
  @ApiProperty({ format: 'uuid' }) membership_id!: string;
  @ApiProperty({ enum: ROLES }) role!: Role;
}
