import { ApiProperty } from '@nestjs/swagger';
import {
  IsEmail,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  registerDecorator,
  type ValidationArguments,
  type ValidationOptions,
} from 'class-validator';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../auth/passwords.js';

/** The property must equal another property of the same object (password confirmation). */
export function EqualsProperty(property: string, options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'equalsProperty',
      target: target.constructor,
      propertyName: propertyName as string,
      constraints: [property],
      options: { message: `${String(propertyName)} must equal ${property}`, ...options },
      validator: {
        validate: (value: unknown, args: ValidationArguments) =>
          value === (args.object as Record<string, unknown>)[args.constraints[0] as string],
      },
    });
}

export class PasswordFields {
  @ApiProperty({ minLength: MIN_PASSWORD_LENGTH })
  @IsString()
  @MinLength(MIN_PASSWORD_LENGTH, {
    message: `password must be at least ${MIN_PASSWORD_LENGTH} characters`,
  })
  @MaxLength(MAX_PASSWORD_LENGTH)
  password!: string;

  @ApiProperty({ name: 'password-confirm' })
  @IsString()
  @EqualsProperty('password')
  'password-confirm'!: string;
}

export class SignupBody extends PasswordFields {
  @ApiProperty({ example: 'ada@example.com', description: 'the login, an e-mail address' })
  @IsEmail({}, { message: 'login must be an e-mail address' })
  @MaxLength(254)
  login!: string;

  @ApiProperty({ example: 'Ada Lovelace' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @Matches(/\S/, { message: 'name must not be blank' })
  name!: string;

  @ApiProperty({ example: 'Analytical Engines' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @Matches(/\S/, { message: 'organization_name must not be blank' })
  organization_name!: string;

  // The consent pairs are checked against the current documents by the service, which answers
  // the dedicated "terms were updated" 422 for missing, stale or mismatching pairs alike.
  @ApiProperty({ type: 'integer' }) @IsOptional() legal_agb_version?: unknown;
  @ApiProperty() @IsOptional() legal_agb_hash?: unknown;
  @ApiProperty({ type: 'integer' }) @IsOptional() legal_nutzungsbedingungen_version?: unknown;
  @ApiProperty() @IsOptional() legal_nutzungsbedingungen_hash?: unknown;
  @ApiProperty({ type: 'integer' }) @IsOptional() legal_datenschutz_version?: unknown;
  @ApiProperty() @IsOptional() legal_datenschutz_hash?: unknown;
}

export class VerifyEmailBody {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(200) token!: string;
}

export class ResendVerificationBody {
  @ApiProperty() @IsEmail() @MaxLength(254) login!: string;
}

export class LoginBody {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(254) login!: string;
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(MAX_PASSWORD_LENGTH) password!: string;
}
