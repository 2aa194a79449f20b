import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import {
  KUBERNETES_VERSION,
  OBJECT_NAME,
  SHOOT_NAME,
  SHOOT_NAME_MAX,
  WORKER_NAME,
  WORKER_NAME_MAX,
} from '../garden/names.js';

/** Worker groups of one cluster, and nodes of one group: bounds of a self-service cluster. */
export const MAX_WORKER_GROUPS = 10;
export const MAX_NODES_PER_GROUP = 100;

export class ClusterWorkerBody {
  @ApiProperty({
    maxLength: WORKER_NAME_MAX,
    pattern: WORKER_NAME.source,
    description: 'the worker group, unique in the cluster',
    example: 'default',
  })
  @IsString()
  @Matches(WORKER_NAME, {
    message: `name must be a lowercase DNS label of 1 to ${WORKER_NAME_MAX} characters, without "--"`,
  })
  name!: string;

  @ApiProperty({
    maxLength: 255,
    description: 'a machine type of the cloud profile (`machine_types`)',
    example: 'm1.large',
  })
  @IsString()
  @Length(1, 255)
  machine_type!: string;

  @ApiProperty({ minimum: 0, maximum: MAX_NODES_PER_GROUP, description: 'fewest nodes' })
  @IsInt()
  @Min(0)
  @Max(MAX_NODES_PER_GROUP)
  minimum!: number;

  @ApiProperty({
    minimum: 1,
    maximum: MAX_NODES_PER_GROUP,
    description: 'most nodes (the autoscaler stays between the two); at least `minimum`',
  })
  @IsInt()
  @Min(1)
  @Max(MAX_NODES_PER_GROUP)
  maximum!: number;
}

/** POST /k8s/clusters: a Gardener Shoot in the project's Gardener project. */
export class CreateClusterBody {
  @ApiPropertyOptional({ format: 'uuid', description: 'the project (or the query parameter)' })
  @IsOptional()
  @IsUUID()
  project_id?: string;

  @ApiProperty({
    maxLength: SHOOT_NAME_MAX,
    pattern: SHOOT_NAME.source,
    description: `unique in the project; a lowercase DNS label of at most ${SHOOT_NAME_MAX} characters without "--" (Gardener limits project and cluster name together)`,
    example: 'prod',
  })
  @IsString()
  @Matches(SHOOT_NAME, {
    message: `name must be a lowercase DNS label of 1 to ${SHOOT_NAME_MAX} characters, without "--"`,
  })
  name!: string;

  @ApiProperty({
    pattern: KUBERNETES_VERSION.source,
    description: 'a version the cloud profile offers and has not expired',
    example: '1.31.2',
  })
  @IsString()
  @Matches(KUBERNETES_VERSION, { message: 'kubernetes_version must be major.minor.patch' })
  kubernetes_version!: string;

  @ApiProperty({
    pattern: OBJECT_NAME.source,
    description: 'a cloud profile (GET /k8s/cloudprofiles)',
  })
  @IsString()
  @Matches(OBJECT_NAME, { message: 'cloud_profile must be the name of a cloud profile' })
  cloud_profile!: string;

  @ApiProperty({ maxLength: 255, description: 'a region of the cloud profile' })
  @IsString()
  @Length(1, 255)
  region!: string;

  @ApiProperty({ type: [ClusterWorkerBody], minItems: 1, maxItems: MAX_WORKER_GROUPS })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_WORKER_GROUPS)
  @ValidateNested({ each: true })
  @Type(() => ClusterWorkerBody)
  workers!: ClusterWorkerBody[];
}
