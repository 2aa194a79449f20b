import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsObject,
  IsOptional,
  IsString,
  isUUID,
  IsUUID,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { HostRoute, ProjectScopedBody } from './networks.dto.js';
import { IsOmittable, Satisfies } from './validators.js';

/** The router's way out: an external network (`router:external`), SNAT on. */
export class RouterGateway {
  @ApiProperty({ format: 'uuid', description: 'an external network' })
  @IsUUID()
  network_id!: string;
}

/** POST /cloud/routers: forwarded as `{"router": {...}}`. */
export class CreateRouterBody extends ProjectScopedBody {
  @ApiPropertyOptional({ maxLength: 255 })
  @IsOmittable()
  @IsString()
  @MaxLength(255)
  name?: string;

  @ApiPropertyOptional({ maxLength: 255 })
  @IsOmittable()
  @IsString()
  @MaxLength(255)
  description?: string;

  @ApiPropertyOptional({ default: true })
  @IsOmittable()
  @IsBoolean()
  admin_state_up?: boolean;

  @ApiPropertyOptional({ type: RouterGateway })
  @IsOmittable()
  @IsObject()
  @ValidateNested()
  @Type(() => RouterGateway)
  external_gateway_info?: RouterGateway;
}

/** A static route of the router; its next hop must be on a subnet it has an interface on. */
export class RouterRoute extends HostRoute {}

/** PATCH /cloud/routers/{id}: the fields to change, forwarded to Neutron's PUT. */
export class UpdateRouterBody {
  @ApiPropertyOptional({ maxLength: 255 })
  @IsOmittable()
  @IsString()
  @MaxLength(255)
  name?: string;

  @ApiPropertyOptional({ maxLength: 255 })
  @IsOmittable()
  @IsString()
  @MaxLength(255)
  description?: string;

  @ApiPropertyOptional()
  @IsOmittable()
  @IsBoolean()
  admin_state_up?: boolean;

  @ApiPropertyOptional({
    type: RouterGateway,
    nullable: true,
    description: 'a new gateway, or null to remove it',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => RouterGateway)
  external_gateway_info?: RouterGateway | null;

  @ApiPropertyOptional({ type: [RouterRoute], maxItems: 32, description: 'replaces all routes' })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(32)
  @ValidateNested({ each: true })
  @Type(() => RouterRoute)
  routes?: RouterRoute[];
}

/** Why the interface body names no single target, or null. */
function interfaceTargetProblem(value: unknown, body: Record<string, unknown>): string | null {
  if (value === undefined && body.port_id === undefined) return 'subnet_id or port_id is required';
  if (value !== undefined && body.port_id !== undefined) {
    return 'give subnet_id or port_id, not both';
  }
  if (value !== undefined && !isUUID(value)) return 'subnet_id must be a UUID';
  return null;
}

/** POST /cloud/routers/{id}/interfaces: a subnet (a new port at its gateway) or a free port. */
export class AddRouterInterfaceBody extends ProjectScopedBody {
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'a subnet of the project with a gateway address; or port_id',
  })
  @Satisfies(
    'interfaceTarget',
    (value, body) => interfaceTargetProblem(value, body) === null,
    (value, body) => interfaceTargetProblem(value, body)!,
  )
  subnet_id?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'a port of the project in no use' })
  @IsOmittable()
  @IsUUID()
  port_id?: string;
}
