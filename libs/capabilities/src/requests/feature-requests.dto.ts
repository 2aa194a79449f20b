import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { GrantConfiguration } from '../catalog/capabilities.dto.js';

export class CreateFeatureRequestBody {
  @ApiProperty({ example: 'alerts' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  feature_key!: string;

  @ApiPropertyOptional({
    type: GrantConfiguration,
    description: 'the kinds asked for; omitted or null kinds: the whole feature',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => GrantConfiguration)
  requested_configuration?: GrantConfiguration;

  @ApiPropertyOptional({ example: 'We want to page the on-call engineer for production.' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  message?: string;
}

export class ApproveFeatureRequestBody {
  @ApiPropertyOptional({
    type: GrantConfiguration,
    description: 'what to grant; omitted: what was requested',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => GrantConfiguration)
  approved_configuration?: GrantConfiguration;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  note?: string;
}

export class RejectFeatureRequestBody {
  @ApiPropertyOptional({ example: 'Not for the trial plan.' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string;
}

export class ListFeatureRequestsQuery {
  @ApiPropertyOptional({ enum: ['pending', 'approved', 'rejected'] })
  @IsOptional()
  @IsIn(['pending', 'approved', 'rejected'])
  status?: 'pending' | 'approved' | 'rejected';
}
