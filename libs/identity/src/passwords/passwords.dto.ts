import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { MAX_PASSWORD_LENGTH } from '../auth/passwords.js';
import { PasswordFields } from '../signup/signup.dto.js';

/** `password` and `password-confirm` follow the signup rules (12 to 256 characters, equal). */
export class ChangePasswordBody extends PasswordFields {
  @ApiProperty({ description: 'the password the account has now' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_PASSWORD_LENGTH)
  current_password!: string;
}

export class PasswordResetBody {
  @ApiProperty({ example: 'ada@example.com', description: 'the login (e-mail address)' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(254)
  login!: string;
}

export class ConfirmPasswordResetBody extends PasswordFields {
  @ApiProperty({ description: 'the token of the reset e-mail' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  token!: string;
}
