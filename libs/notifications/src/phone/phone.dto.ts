import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';

/** E.164: a plus, a country code not starting with 0, 8 to 15 digits in all. */
export const E164 = /^\+[1-9]\d{7,14}$/;

export class SetPhoneBody {
  @ApiProperty({ example: '+4915123456789', description: 'E.164' })
  @IsString()
  @Matches(E164, { message: 'phone_number must be in E.164 format, e.g. +4915123456789' })
  phone_number!: string;
}

export class VerifyPhoneBody {
  @ApiProperty({ example: '042137', description: 'the 6-digit code sent by SMS' })
  @IsString()
  @Matches(/^\d{6}$/, { message: 'code must be the 6 digits sent by SMS' })
  code!: string;
}
