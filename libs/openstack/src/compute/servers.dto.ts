import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBase64,
  IsIP,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  MaxLength,
  ValidateNested,
} from 'class-validator';

/** One network of a new server: a network, or an existing port. */
export class ServerNetwork {
  @ApiPropertyOptional({ format: 'uuid', description: 'a network of the project' })
  @IsOptional()
  @IsUUID()
  uuid?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'an existing port, instead of a network' })
  @IsOptional()
  @IsUUID()
  port?: string;

  @ApiPropertyOptional({ description: 'a fixed address on that network' })
  @IsOptional()
  @IsIP()
  fixed_ip?: string;
}

export class ServerSecurityGroup {
  @ApiProperty({ description: 'the security group name (or id)' })
  @IsString()
  @Length(1, 255)
  name!: string;
}

/** POST /cloud/servers: Nova's server create body, forwarded as `{"server": {...}}`. */
export class CreateServerBody {
  @ApiPropertyOptional({ format: 'uuid', description: 'the project (or the query parameter)' })
  @IsOptional()
  @IsUUID()
  project_id?: string;

  @ApiProperty({ minLength: 1, maxLength: 255 })
  @IsString()
  @Length(1, 255)
  name!: string;

  @ApiProperty({ description: 'flavor id' })
  @IsString()
  @Length(1, 255)
  flavorRef!: string;

  @ApiProperty({ description: 'image id' })
  @IsString()
  @Length(1, 255)
  imageRef!: string;

  @ApiProperty({ type: [ServerNetwork], maxItems: 16 })
  @IsArray()
  @ArrayMaxSize(16)
  @ValidateNested({ each: true })
  @Type(() => ServerNetwork)
  networks!: ServerNetwork[];

  @ApiPropertyOptional({ description: 'an SSH keypair of the project' })
  @IsOptional()
  @IsString()
  @Length(1, 255)
  key_name?: string;

  @ApiPropertyOptional({ type: [ServerSecurityGroup], maxItems: 16 })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(16)
  @ValidateNested({ each: true })
  @Type(() => ServerSecurityGroup)
  security_groups?: ServerSecurityGroup[];

  @ApiPropertyOptional({ description: 'base64, at most 64 KiB encoded' })
  @IsOptional()
  @IsBase64()
  @MaxLength(65535)
  user_data?: string;
}
