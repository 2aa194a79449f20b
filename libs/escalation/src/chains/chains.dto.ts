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
  @ApiProperty({
    example: 'Database on-call',
    minLength: 1,
    maxLength: MAX_CHAIN_NAME_LENGTH,
    description: `not blank, at most ${MAX_CHAIN_NAME_LENGTH} characters; need not be unique`,
  })
  @IsString()
  @Matches(/\S/, { message: 'name must not be blank' })
  @MaxLength(MAX_CHAIN_NAME_LENGTH)
  name!: string;

  @ApiPropertyOptional({
    type: String,
    default: '',
    maxLength: MAX_CHAIN_DESCRIPTION_LENGTH,
    nullable: true,
    description: 'omitted or null stores an empty description',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CHAIN_DESCRIPTION_LENGTH)
  description?: string | null;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: MIN_RE_ESCALATION_AFTER,
    maximum: MAX_RE_ESCALATION_AFTER,
    nullable: true,
    default: null,
    example: 1800,
    description:
      'seconds after an acknowledgement at which the chain restarts from its first step if the alert is still firing; null: never',
  })
  @IsOptional()
  @IsInt()
  @Min(MIN_RE_ESCALATION_AFTER)
  @Max(MAX_RE_ESCALATION_AFTER)
  re_escalation_after?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_REPEATS,
    default: 0,
    description:
      'how many more times the whole chain runs after its first pass before the escalation is exhausted',
  })
  @ValidateIf(sent)
  @IsInt()
  @Min(0)
  @Max(MAX_REPEATS)
  repeats?: number;
}

/** Partial: omitted fields stay as they are; null clears description and re_escalation_after. */
export class UpdateChainBody {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: MAX_CHAIN_NAME_LENGTH,
    description: 'not blank; omitted: unchanged',
  })
  @ValidateIf(sent)
  @IsString()
  @Matches(/\S/, { message: 'name must not be blank' })
  @MaxLength(MAX_CHAIN_NAME_LENGTH)
  name?: string;

  @ApiPropertyOptional({
    type: String,
    maxLength: MAX_CHAIN_DESCRIPTION_LENGTH,
    nullable: true,
    description: 'omitted: unchanged; null clears it',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CHAIN_DESCRIPTION_LENGTH)
  description?: string | null;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: MIN_RE_ESCALATION_AFTER,
    maximum: MAX_RE_ESCALATION_AFTER,
    nullable: true,
    description: 'seconds; omitted: unchanged; null: never re-escalate',
  })
  @IsOptional()
  @IsInt()
  @Min(MIN_RE_ESCALATION_AFTER)
  @Max(MAX_RE_ESCALATION_AFTER)
  re_escalation_after?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_REPEATS,
    description: 'omitted: unchanged',
  })
  @ValidateIf(sent)
  @IsInt()
  @Min(0)
  @Max(MAX_REPEATS)
  repeats?: number;
}

export class CloneChainBody {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: MAX_CHAIN_NAME_LENGTH,
    example: 'Database on-call (weekends)',
    description:
      'not blank; default: "<name> (copy)", the source name shortened to fit the length limit',
  })
  @ValidateIf(sent)
  @IsString()
  @Matches(/\S/, { message: 'name must not be blank' })
  @MaxLength(MAX_CHAIN_NAME_LENGTH)
  name?: string;
}
