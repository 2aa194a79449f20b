import { ApiProperty } from '@nestjs/swagger';
import type { CloudProfile } from '../garden/gardener-kinds.js';

/*
 * A Gardener CloudProfile as the API shows it: what a create may choose from. Quantities
 * (`cpu`, `memory`, `gpu`) are Kubernetes quantity strings, as Gardener writes them.
 */

export class CloudProfileVersionDto {
  @ApiProperty({ example: '1.31.2' }) version!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: '`preview`, `supported` or `deprecated`',
  })
  classification!: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'after this, new clusters may not use the version',
  })
  expiration_date!: string | null;
}

export class CloudProfileRegionDto {
  @ApiProperty() name!: string;
  @ApiProperty({ type: [String] }) zones!: string[];
}

export class CloudProfileMachineTypeDto {
  @ApiProperty({ example: 'm1.large' }) name!: string;
  @ApiProperty({ type: String, nullable: true, example: '4' }) cpu!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '16Gi' }) memory!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '0' }) gpu!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'amd64' }) architecture!: string | null;
  @ApiProperty({ description: 'false: listed, but new worker groups may not use it' })
  usable!: boolean;
}

export class CloudProfileDto {
  @ApiProperty({ description: "the profile's name: a create's `cloud_profile`" }) name!: string;
  @ApiProperty({ description: 'the provider, e.g. `openstack`, `aws`, `gcp`' }) type!: string;
  @ApiProperty({ type: [CloudProfileVersionDto] }) kubernetes_versions!: CloudProfileVersionDto[];
  @ApiProperty({ type: [CloudProfileRegionDto] }) regions!: CloudProfileRegionDto[];
  @ApiProperty({ type: [CloudProfileMachineTypeDto] })
  machine_types!: CloudProfileMachineTypeDto[];
}

const quantity = (value: string | number | undefined): string | null =>
  value === undefined || value === null ? null : String(value);

export function cloudProfileView(profile: CloudProfile): CloudProfileDto {
  const spec = profile.spec ?? {};
  return {
    name: profile.metadata.name ?? '',
    type: spec.type ?? '',
    kubernetes_versions: (spec.kubernetes?.versions ?? []).map((version) => ({
      version: version.version,
      classification: version.classification ?? null,
      expiration_date: version.expirationDate ?? null,
    })),
    regions: (spec.regions ?? []).map((region) => ({
      name: region.name,
      zones: (region.zones ?? []).map((zone) => zone.name),
    })),
    machine_types: (spec.machineTypes ?? []).map((machine) => ({
      name: machine.name,
      cpu: quantity(machine.cpu),
      memory: quantity(machine.memory),
      gpu: quantity(machine.gpu),
      architecture: machine.architecture ?? null,
      usable: machine.usable !== false,
    })),
  };
}
