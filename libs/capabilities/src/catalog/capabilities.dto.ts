import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsObject,
  IsString,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

export class KindsConfiguration {
  @ApiProperty({ type: [String], example: ['wordpress', 'nextcloud'] })
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  allowed_kinds!: string[];
}

export class GrantConfiguration {
  @ApiProperty({
    type: [String],
    nullable: true,
    example: ['wordpress'],
    description: 'kinds the project may use; null: whatever the Limit allows, now and later',
  })
  @ValidateIf((o: GrantConfiguration) => o.allowed_kinds !== null)
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  allowed_kinds!: string[] | null;
}

export class SetLimitBody {
  @ApiProperty({
    type: KindsConfiguration,
    nullable: true,
    description: 'the Limit; null: unbounded',
  })
  @ValidateIf((o: SetLimitBody) => o.ceiling_configuration !== null)
  @IsObject()
  @ValidateNested()
  @Type(() => KindsConfiguration)
  ceiling_configuration!: KindsConfiguration | null;
}

export class SetGrantBody {
  @ApiProperty({ type: GrantConfiguration })
  @IsObject()
  @ValidateNested()
  @Type(() => GrantConfiguration)
  approved_configuration!: GrantConfiguration;
}
