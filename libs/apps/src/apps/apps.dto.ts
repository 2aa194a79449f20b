import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsObject, IsOptional, IsString, IsUUID, Matches } from 'class-validator';
import { APP_KINDS, type AppKind } from './app-kinds.js';
import type { AppStatus } from './app-view.js';

/**
 * An app's name is its HelmRelease's name, and Helm's release names: a DNS label of at most
 * 53 characters, starting with a letter.
 */
export const APP_NAME = /^[a-z](?:[-a-z0-9]{0,51}[a-z0-9])?$/;
const NAME_MESSAGE =
  'name must be 1 to 53 lowercase letters, digits or `-`, starting with a letter and not ending with `-`';

const VALUES_DESCRIPTION =
  'the values of the kind, checked against its schema: `container` `{image ("registry/namespace/repository:tag"), port (1..65535), replicas? (1..20, default 1), env? ([{name, value}]), host?}`; `wordpress` `{host, blog_name?, admin_email?}`; `nextcloud` `{host}`; `static_site` `{host, git_repository (https URL), git_branch? (default main), replicas?}`. `host` is a DNS name the app answers on (`url` https://host)';

/** POST /apps */
export class CreateAppBody {
  @ApiPropertyOptional({ format: 'uuid', description: 'the project (or the query parameter)' })
  @IsOptional()
  @IsUUID()
  project_id?: string;

  @ApiProperty({
    pattern: APP_NAME.source,
    description: "unique in the project; the HelmRelease's name, fixed once created",
  })
  @IsString()
  @Matches(APP_NAME, { message: NAME_MESSAGE })
  name!: string;

  @ApiProperty({
    enum: APP_KINDS,
    description: "must be one of the project's Available app kinds",
  })
  @IsIn(APP_KINDS)
  kind!: AppKind;

  @ApiProperty({ type: 'object', additionalProperties: true, description: VALUES_DESCRIPTION })
  @IsObject()
  values!: Record<string, unknown>;
}

/**
 * PATCH /apps/{id}: `values` replace the app's values as a whole (what is left out is gone);
 * a new `kind` must be Available and its values valid for it.
 */
export class UpdateAppBody {
  @ApiPropertyOptional({
    pattern: APP_NAME.source,
    description: 'apps cannot be renamed: accepted only when it is the current name',
  })
  @IsOptional()
  @IsString()
  name?: string;

  @ApiPropertyOptional({
    enum: APP_KINDS,
    description: "a change of kind must be one of the project's Available app kinds",
  })
  @IsOptional()
  @IsIn(APP_KINDS)
  kind?: AppKind;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: `the new values as a whole; omitted, the current ones (checked again when the kind changes). ${VALUES_DESCRIPTION}`,
  })
  @IsOptional()
  @IsObject()
  values?: Record<string, unknown>;
}

export class AppResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) project_id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: APP_KINDS }) kind!: AppKind;

  @ApiProperty({
    enum: ['ready', 'failed', 'progressing', 'unknown'],
    description:
      "from the HelmRelease's Ready condition: True `ready`, False `failed`, Unknown or a spec Flux has not reconciled yet `progressing`; `unknown` when Flux reports none",
  })
  status!: AppStatus;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'the values of the kind, as sent (with defaults filled in)',
  })
  values!: Record<string, unknown>;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      '`container` apps: `repository:tag` running, with `@digest` when a registry push pinned one; null for other kinds',
  })
  image!: string | null;

  @ApiProperty({ type: String, nullable: true, description: '`https://<host>`, or null' })
  url!: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'when Helm last installed or upgraded the release successfully',
  })
  last_deployed_at!: string | null;
}
