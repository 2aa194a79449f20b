import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsOptional,
  IsString,
  Matches,
  registerDecorator,
  type ValidationOptions,
} from 'class-validator';

/**
 * A Groupware's name: a DNS label starting with a letter, at most 40 characters, leaving room
 * for what the groupware operator appends to it (`-data-backup`, `-occ-<hash>`) within the
 * 63 that Kubernetes names allow.
 */
export const WORKSPACE_NAME = /^[a-z](?:[-a-z0-9]{0,38}[a-z0-9])?$/;
/** A GroupwareProfile's name (a cluster-scoped object): a DNS subdomain. */
export const PROFILE_NAME = /^(?=.{1,253}$)[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?$/;

// Kubernetes label syntax: an optional DNS-subdomain prefix and `/`, then a name of at most 63
// characters; values are at most 63 such characters, or empty.
const LABEL_NAME = '[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?';
const LABEL_KEY = new RegExp(
  `^(?:(?=[^/]{1,253}/)[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?/)?${LABEL_NAME}$`,
);
const LABEL_VALUE = new RegExp(`^(?:${LABEL_NAME})?$`);
const MAX_SELECTOR_LABELS = 20;

export function isLabelMap(value: unknown): boolean {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const entries = Object.entries(value as Record<string, unknown>);
  return (
    entries.length <= MAX_SELECTOR_LABELS &&
    entries.every(
      ([key, label]) => LABEL_KEY.test(key) && typeof label === 'string' && LABEL_VALUE.test(label),
    )
  );
}

function IsLabelMap(options?: ValidationOptions): PropertyDecorator {
  return (target, property) =>
    registerDecorator({
      name: 'isLabelMap',
      target: target.constructor,
      propertyName: property as string,
      options: {
        message: `pool_selector must map at most ${MAX_SELECTOR_LABELS} Kubernetes label keys to label values`,
        ...options,
      },
      validator: { validate: isLabelMap },
    });
}

/** POST /workspaces */
export class CreateWorkspaceBody {
  @ApiProperty({
    pattern: WORKSPACE_NAME.source,
    description: "unique in the organization; the Groupware's name",
  })
  @IsString()
  @Matches(WORKSPACE_NAME, {
    message:
      'name must be 1 to 40 lowercase letters, digits or `-`, starting with a letter and not ending with `-`',
  })
  name!: string;

  @ApiProperty({
    pattern: PROFILE_NAME.source,
    description: 'a GroupwareProfile of the apps cluster (e.g. production, testing, development)',
  })
  @IsString()
  @Matches(PROFILE_NAME, { message: 'profile must be the name of a groupware profile' })
  profile!: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    nullable: true,
    description:
      "labels of the groupware pools to claim a ready instance from (the Groupware's `poolSelector.matchLabels`); omitted or null, the operator creates an instance of the profile",
    example: { tier: 'standard' },
  })
  @IsOptional()
  @IsLabelMap()
  pool_selector?: Record<string, string> | null;
}

export class WorkspaceInstanceDto {
  @ApiProperty() namespace!: string;
  @ApiProperty() name!: string;
}

export class WorkspaceResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() profile!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    nullable: true,
    description: 'the pool labels it selects, or null',
  })
  pool_selector!: Record<string, string> | null;

  @ApiProperty({
    description:
      "the Groupware's phase (Pending, Creating, Ready, Updating, Failed); Pending until the operator reports one",
  })
  phase!: string;

  @ApiProperty({ type: String, nullable: true, description: 'where the workspace answers' })
  url!: string | null;

  @ApiProperty({
    type: WorkspaceInstanceDto,
    nullable: true,
    description: 'the GroupwareInstance serving it, once the operator created or claimed one',
  })
  instance!: WorkspaceInstanceDto | null;
}
