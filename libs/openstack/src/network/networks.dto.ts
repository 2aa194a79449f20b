import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsIP,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsCidr, IsOmittable, ipVersionOf, parseCidr, Satisfies } from './validators.js';

/** The body of a create names its project here, or the query does; never forwarded. */
export class ProjectScopedBody {
  @ApiPropertyOptional({ format: 'uuid', description: 'the project (or the query parameter)' })
  @IsOptional()
  @IsUUID()
  project_id?: string;
}

/** POST /cloud/networks: forwarded as `{"network": {...}}`. */
export class CreateNetworkBody extends ProjectScopedBody {
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

  @ApiPropertyOptional({ minimum: 68, maximum: 9216, description: "default: the cloud's" })
  @IsOmittable()
  @IsInt()
  @Min(68)
  @Max(9216)
  mtu?: number;

  @ApiPropertyOptional({ default: true })
  @IsOmittable()
  @IsBoolean()
  port_security_enabled?: boolean;
}

export class AllocationPool {
  @ApiProperty({ description: 'first address of the pool' })
  @IsIP()
  start!: string;

  @ApiProperty({ description: 'last address of the pool' })
  @IsIP()
  end!: string;
}

export class HostRoute {
  @ApiProperty({ example: '192.168.0.0/16' })
  @IsCidr()
  destination!: string;

  @ApiProperty({ example: '10.0.0.254' })
  @IsIP()
  nexthop!: string;
}

/** Whether an address is of the subnet's family; other failures are their own fields'. */
const sameFamily = (version: number | null | undefined, body: Record<string, unknown>) =>
  !version || (body.ip_version !== 4 && body.ip_version !== 6) || version === body.ip_version;

const IPV6_MODES = ['slaac', 'dhcpv6-stateful', 'dhcpv6-stateless'];

/** POST /cloud/subnets: forwarded as `{"subnet": {...}}`. */
export class CreateSubnetBody extends ProjectScopedBody {
  @ApiProperty({ format: 'uuid', description: 'a network of the project' })
  @IsUUID()
  network_id!: string;

  @ApiProperty({ example: '10.0.0.0/24', description: 'the network address and prefix' })
  @IsCidr({ exact: true })
  @Satisfies(
    'cidrMatchesIpVersion',
    (value, body) => sameFamily(typeof value === 'string' ? parseCidr(value)?.version : null, body),
    'must be of the family ip_version names',
  )
  cidr!: string;

  @ApiProperty({ enum: [4, 6] })
  @IsIn([4, 6])
  ip_version!: 4 | 6;

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

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'default: the first address of the CIDR; null: no gateway',
  })
  @IsOptional()
  @IsIP()
  @Satisfies(
    'gatewayMatchesIpVersion',
    (value, body) => sameFamily(ipVersionOf(value), body),
    'must be of the family ip_version names',
  )
  gateway_ip?: string | null;

  @ApiPropertyOptional({ default: true })
  @IsOmittable()
  @IsBoolean()
  enable_dhcp?: boolean;

  @ApiPropertyOptional({ type: [String], maxItems: 5 })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(5)
  @IsIP(undefined, { each: true })
  dns_nameservers?: string[];

  @ApiPropertyOptional({ type: [AllocationPool], maxItems: 16 })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(16)
  @ValidateNested({ each: true })
  @Type(() => AllocationPool)
  allocation_pools?: AllocationPool[];

  @ApiPropertyOptional({ type: [HostRoute], maxItems: 32 })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(32)
  @ValidateNested({ each: true })
  @Type(() => HostRoute)
  host_routes?: HostRoute[];

  @ApiPropertyOptional({ enum: IPV6_MODES, description: 'IPv6 only' })
  @IsOmittable()
  @IsIn(IPV6_MODES)
  ipv6_ra_mode?: string;

  @ApiPropertyOptional({ enum: IPV6_MODES, description: 'IPv6 only' })
  @IsOmittable()
  @IsIn(IPV6_MODES)
  ipv6_address_mode?: string;
}

/** POST /cloud/floating-ips: forwarded as `{"floatingip": {...}}`. */
export class CreateFloatingIpBody extends ProjectScopedBody {
  @ApiProperty({ format: 'uuid', description: 'an external network (`router:external`)' })
  @IsUUID()
  floating_network_id!: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description:
      'a port of the project to associate; its subnet must reach the network by a router',
  })
  @IsOmittable()
  @IsUUID()
  port_id?: string;

  @ApiPropertyOptional({ description: 'which address of the port (default: its first IPv4)' })
  @IsOmittable()
  @IsIP()
  @Satisfies('fixedIpNeedsPort', (_value, body) => body.port_id !== undefined, 'needs port_id')
  fixed_ip_address?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'a subnet of the external network' })
  @IsOmittable()
  @IsUUID()
  subnet_id?: string;

  @ApiPropertyOptional({ maxLength: 255 })
  @IsOmittable()
  @IsString()
  @Length(0, 255)
  description?: string;
}
