import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsIn,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import { SEVERITIES, type Severity } from '../entities.js';

export class CreateAbsenceBody {
  @ApiProperty({ format: 'date-time' }) @IsISO8601({ strict: true }) starts_at!: string;
  @ApiProperty({ format: 'date-time', description: 'strictly after starts_at' })
  @IsISO8601({ strict: true })
  ends_at!: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(500) note?: string;
}

export class CreateBroadcastBody {
  @ApiProperty() @IsString() @IsNotEmpty() @Matches(/\S/) @MaxLength(200) title!: string;
  @ApiProperty() @IsString() @IsNotEmpty() @Matches(/\S/) @MaxLength(5000) body!: string;
  @ApiProperty({ enum: SEVERITIES }) @IsIn(SEVERITIES) severity!: Severity;
  @ApiProperty() @IsBoolean() banner!: boolean;
}
