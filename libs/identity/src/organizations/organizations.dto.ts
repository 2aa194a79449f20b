import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import { type PermissionOverrides, type Role, ROLES } from '../access/permissions.js';

export class CreateProjectBody {
  @ApiProperty({ example: 'production' })
  @IsString()
  @IsNotEmpty()
  // The controller trims the name, so a blank one would be stored as ''.
  @Matches(/\S/, { message: 'name must not be blank' })
  @MaxLength(100)
  name!: string;
}

export class CreateOrganizationBody {
  @ApiProperty({ example: 'Acme' })
  @IsString()
  @IsNotEmpty()
  // Trimmed before it is stored, like the organization name of a sign-up.
  @Matches(/\S/, { message: 'name must not be blank' })
  @MaxLength(200)
  name!: string;
}

export class UpdateMembershipBody {
  @ApiPropertyOptional({ enum: ROLES })
  @IsOptional()
  @IsIn(ROLES)
  role?: Role;

  @ApiPropertyOptional({
    description:
      'per-category overrides, e.g. {"alerts": ["read", "update"]}; a category present replaces the role default',
  })
  @IsOptional()
  @IsObject()
  permissions?: PermissionOverrides;
}
