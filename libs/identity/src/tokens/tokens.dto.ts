import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  registerDecorator,
  ValidateNested,
} from 'class-validator';
import { isValidScope, SCOPE_LEVELS } from '../access/permissions.js';
import { MAX_PASSWORD_LENGTH } from '../auth/passwords.js';

function IsScope(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isScope',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        each: true,
        message: `each scope must be <resource>:<level> with a known resource and level ${SCOPE_LEVELS.join(', ')}`,
      },
      validator: { validate: (value: unknown) => typeof value === 'string' && isValidScope(value) },
    });
}

export class TokenFields {
  @ApiProperty({ example: 'ci deploys' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  @Matches(/\S/, { message: 'name must not be blank' })
  name!: string;

  @ApiProperty({
    example: ['alerts:read', 'dns:write'],
    description: '<resource>:<level>, level read, write, manage or *',
  })
  @IsArray()
  @ArrayMinSize(1, { message: 'at least one scope is required' })
  @ArrayMaxSize(50)
  @IsScope()
  scopes!: string[];
}

export class CreateTokenBody {
  @ApiProperty({ type: TokenFields })
  @IsObject()
  @ValidateNested()
  @Type(() => TokenFields)
  token!: TokenFields;

  @ApiPropertyOptional({
    description: 'the account password; needed when the session is older than 15 minutes',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_PASSWORD_LENGTH)
  current_password?: string;
}
