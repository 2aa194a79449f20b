import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';

export const MAX_CHAIN_NAME_LENGTH = 200;
export const MAX_CHAIN_DESCRIPTION_LENGTH = 2000;
export const MIN_RE_ESCALATION_AFTER = 60;
export const MAX_RE_ESCALATION_AFTER = 604800;
export const MAX_REPEATS = 10;

/** Present in the body, null included (PATCH validates what was sent, skips what was not). */
export const sent = (_object: object, value: unknown) => value !== undefined;

export class CreateChainBody {
  @ApiProperty({ example: 'Database on-call', maxLength: MAX_CHAIN_NAME_LENGTH })
  @IsString()
  @Matches(/\S/, { message: 'name must not be blank' })
  @MaxLength(MAX_CHAIN_NAME_LENGTH)
  name!: string;

  @ApiPropertyOptional({ default: '', maxLength: MAX_CHAIN_DESCRIPTION_LENGTH, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CHAIN_DESCRIPTION_LENGTH)
  description?: string | null;

  @ApiPropertyOptional({
    minimum: MIN_RE_ESCALATION_AFTER,
    maximum: MAX_RE_ESCALATION_AFTER,
    nullable: true,
    default: null,
    description:
      'seconds after an acknowledgement at which the chain restarts from its first step if the alert is still firing; null: never',
  })
  @IsOptional()
  @IsInt()
  @Min(MIN_RE_ESCALATION_AFTER)
  @Max(MAX_RE_ESCALATION_AFTER)
  re_escalation_after?: number | null;

  @ApiPropertyOptional({
    minimum: 0,
    maximum: MAX_REPEATS,
    default: 0,
    description: 'how many more times the whole chain runs after its first pass',
  })
  @ValidateIf(sent)
  @IsInt()
  @Min(0)
  @Max(MAX_REPEATS)
  repeats?: number;
}

/** Partial: omitted fields stay as they are; null clears description and re_escalation_after. */
export class UpdateChainBody {
  @ApiPropertyOptional({ maxLength: MAX_CHAIN_NAME_LENGTH })
  @ValidateIf(sent)
  @IsString()
  @Matches(/\S/, { message: 'name must not be blank' })
  @MaxLength(MAX_CHAIN_NAME_LENGTH)
  name?: string;

  @ApiPropertyOptional({ maxLength: MAX_CHAIN_DESCRIPTION_LENGTH, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CHAIN_DESCRIPTION_LENGTH)
  description?: string | null;

  @ApiPropertyOptional({
    minimum: MIN_RE_ESCALATION_AFTER,
    maximum: MAX_RE_ESCALATION_AFTER,
    nullable: true,
  })
  @IsOptional()
  @IsInt()
  @Min(MIN_RE_ESCALATION_AFTER)
  @Max(MAX_RE_ESCALATION_AFTER)
  re_escalation_after?: number | null;

  @ApiPropertyOptional({ minimum: 0, maximum: MAX_REPEATS })
  @ValidateIf(sent)
  @IsInt()
  @Min(0)
  @Max(MAX_REPEATS)
  repeats?: number;
}

export class CloneChainBody {
  @ApiPropertyOptional({
    maxLength: MAX_CHAIN_NAME_LENGTH,
    description: 'default: "<name> (copy)"',
  })
  @ValidateIf(sent)
  @IsString()
  @Matches(/\S/, { message: 'name must not be blank' })
  @MaxLength(MAX_CHAIN_NAME_LENGTH)
  name?: string;
}
