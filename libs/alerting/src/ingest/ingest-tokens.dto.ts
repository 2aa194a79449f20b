import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';

export class MintIngestTokenBody {
  @ApiPropertyOptional({
    example: 'alertmanager prod-eu',
    description: 'shown in GET /tokens; default "Alertmanager ingest"',
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @Matches(/\S/, { message: 'name must not be blank' })
  name?: string;

  @ApiPropertyOptional({
    description: 'the account password; needed when the session is older than 15 minutes',
  })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  current_password?: string;
}
