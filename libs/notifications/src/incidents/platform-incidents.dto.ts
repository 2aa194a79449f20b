import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import { SEVERITIES, type Severity } from '../entities.js';

export class CreatePlatformIncidentBody {
  @ApiProperty() @IsString() @IsNotEmpty() @Matches(/\S/) @MaxLength(200) title!: string;
  @ApiProperty() @IsString() @IsNotEmpty() @Matches(/\S/) @MaxLength(5000) body!: string;
  @ApiProperty({ enum: SEVERITIES }) @IsIn(SEVERITIES) severity!: Severity;
  @ApiPropertyOptional({
    type: [String],
    description: 'feature keys of the capability catalog; absent: every account is concerned',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ArrayUnique()
  @IsString({ each: true })
  affected_features?: string[];
}

export class UpdatePlatformIncidentBody {
  @ApiPropertyOptional() @IsOptional() @IsString() @Matches(/\S/) @MaxLength(200) title?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @Matches(/\S/) @MaxLength(5000) body?: string;
  @ApiPropertyOptional({ enum: [true], description: 'resolves the incident (it never reopens)' })
  @IsOptional()
  @IsIn([true])
  resolved?: true;
}

export class PlatformIncidentResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() title!: string;
  @ApiProperty() body!: string;
  @ApiProperty({ enum: SEVERITIES }) severity!: Severity;
  @ApiProperty({ type: [String], nullable: true, description: 'null: every account' })
  affected_features!: string[] | null;
  @ApiProperty({ enum: ['open', 'resolved'] }) status!: 'open' | 'resolved';
  @ApiProperty({ type: String, format: 'date-time' }) opened_at!: Date;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) resolved_at!: Date | null;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at!: Date;
}
