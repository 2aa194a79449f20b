import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { MAX_PASSWORD_LENGTH } from '../auth/passwords.js';

export class ChangeEmailBody {
  @ApiProperty({
    example: 'ada@new.example',
    description: 'the new address; it becomes the login once the link mailed to it is opened',
  })
  @IsEmail({}, { message: 'email must be an e-mail address' })
  @MaxLength(254)
  email!: string;

  @ApiProperty({ description: 'the password the account has now' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_PASSWORD_LENGTH)
  current_password!: string;
}

export class ConfirmEmailChangeBody {
  @ApiProperty({ description: 'the token of the confirmation e-mail' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  token!: string;
}

export class PendingEmailChangeResponseDto {
  @ApiProperty({ description: 'the address waiting for confirmation' })
  email!: string;

  @ApiProperty({ type: String, format: 'date-time', description: 'when the link expires' })
  expires_at!: Date;
}

export class EmailChangedResponseDto {
  @ApiProperty({ description: 'the login and e-mail address of the account now' })
  email!: string;

  @ApiProperty({ enum: [true] })
  email_verified!: true;
}
