import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ProjectResponseDto } from '@platform/identity';
import type { ProvisioningTier } from './catalog/capabilities.repository.js';
import type { FeatureRequestStatus } from './requests/feature-requests.repository.js';

/*
 * The response bodies of the capability routes (the `data` of the success envelope). The view
 * functions return these types; the services never answer instances of them.
 */

export class KindsConfigurationDto {
  @ApiProperty({ type: [String], nullable: true, description: 'null: every kind' })
  allowed_kinds!: string[] | null;
}

export class FeatureResponseDto {
  @ApiProperty() key!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ['self_service', 'provisioned'] }) provisioning_tier!: ProvisioningTier;
  @ApiProperty() billed!: boolean;
  @ApiProperty({ type: [String] }) available_kinds!: string[];
  @ApiProperty({
    type: KindsConfigurationDto,
    nullable: true,
    description: "the organization's Limit; null: unbounded",
  })
  ceiling_configuration!: KindsConfigurationDto | null;
}

export class FeatureGrantResponseDto {
  @ApiProperty() feature_key!: string;
  @ApiProperty({ enum: ['self_service', 'provisioned'] }) provisioning_tier!: ProvisioningTier;
  @ApiProperty({
    type: KindsConfigurationDto,
    nullable: true,
    description: "the project's Grant; null: not granted",
  })
  approved_configuration!: KindsConfigurationDto | null;
  @ApiProperty({
    type: KindsConfigurationDto,
    nullable: true,
    description: "the organization's Limit; null: unbounded",
  })
  ceiling_configuration!: KindsConfigurationDto | null;
  @ApiProperty({
    type: [String],
    nullable: true,
    description: 'Grant ∩ Limit; null: every kind',
  })
  effective_allowed_kinds!: readonly string[] | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) granted_at!: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updated_at!: Date | null;
}

/** The Keystone project that serves a platform project's cloud resources. */
export class ProjectOpenStackDto {
  @ApiProperty() keystone_project_id!: string;
  @ApiProperty({ description: '`platform-<project uuid>`' }) keystone_project_name!: string;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: Date;
}

export class ProjectDetailResponseDto extends ProjectResponseDto {
  @ApiProperty({ type: [String], description: 'the app kinds the project may create now' })
  effective_app_kinds!: string[];

  @ApiPropertyOptional({
    type: ProjectOpenStackDto,
    nullable: true,
    description:
      'platform admins only: the Keystone project serving the cloud routes (null until their first use)',
  })
  openstack?: ProjectOpenStackDto | null;
}

export class AccountRefDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
}

export class FeatureRequestResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) project_id!: string;
  @ApiProperty() feature_key!: string;
  @ApiProperty({ type: KindsConfigurationDto }) requested_configuration!: KindsConfigurationDto;
  @ApiProperty({ type: String, nullable: true }) message!: string | null;
  @ApiProperty({ enum: ['pending', 'approved', 'rejected'] }) status!: FeatureRequestStatus;
  @ApiProperty({ type: AccountRefDto, nullable: true }) requested_by!: AccountRefDto | null;
  @ApiProperty({ type: AccountRefDto, nullable: true }) decided_by!: AccountRefDto | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) decided_at!: Date | null;
  @ApiProperty({ type: String, nullable: true }) decision_note!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: Date;
}
