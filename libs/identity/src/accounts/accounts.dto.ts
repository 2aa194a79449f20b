import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsUUID, ValidateIf } from 'class-validator';

/** GET /accounts/me. An empty `organization_id` counts as absent, as on every other route. */
export class ShowAccountQuery {
  @ApiPropertyOptional({
    format: 'uuid',
    description:
      'the organization `current_organization_id` reports when the account is a member of it; not a uuid: 422',
  })
  @ValidateIf((_: object, value: unknown) => value !== undefined && value !== '')
  @IsUUID('all')
  organization_id?: string;
}
