import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsEmail,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
} from 'class-validator';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../auth/passwords.js';
import { type Role, ROLES } from '../access/permissions.js';
import { EqualsProperty } from '../signup/signup.dto.js';

export class CreateInvitationBody {
  @ApiProperty() @IsEmail() @MaxLength(254) email!: string;
  @ApiProperty({ enum: ROLES }) @IsIn(ROLES) role!: Role;
}

/** Only needed when no account with the invited login exists yet. */
export class AcceptInvitationBody {
  // The service trims the name, so a blank one would create an account named ''.
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @Matches(/\S/, { message: 'name must not be blank' })
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ minLength: MIN_PASSWORD_LENGTH })
  @IsOptional()
  @IsString()
  @MinLength(MIN_PASSWORD_LENGTH, {
    message: `password must be at least ${MIN_PASSWORD_LENGTH} characters`,
  })
  @MaxLength(MAX_PASSWORD_LENGTH)
  password?: string;

  @ApiPropertyOptional({ name: 'password-confirm' })
  @IsOptional()
  @IsString()
  @EqualsProperty('password')
  'password-confirm'?: string;
}

/** GET /invitations/details: the token from the invitation e-mail's link. */
export class InvitationDetailsQuery {
  @ApiProperty({ minLength: 1, description: "the invitation's token, as in the e-mail's link" })
  @IsString()
  @IsNotEmpty()
  token!: string;
}
