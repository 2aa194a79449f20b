import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsString, IsUUID, Length, MaxLength } from 'class-validator';
import { ProjectScopedBody } from './networks.dto.js';
import { IsCidr, IsOmittable, ipVersionOf, Satisfies } from './validators.js';

/** POST /cloud/security-groups: forwarded as `{"security_group": {...}}`. */
export class CreateSecurityGroupBody extends ProjectScopedBody {
  @ApiProperty({
    minLength: 1,
    maxLength: 255,
    description: 'not `default`, which the project has already',
  })
  @IsString()
  @Length(1, 255)
  name!: string;

  @ApiPropertyOptional({ maxLength: 255 })
  @IsOmittable()
  @IsString()
  @MaxLength(255)
  description?: string;
}

/** PUT /cloud/security-groups/{id}: the fields to change. */
export class UpdateSecurityGroupBody {
  @ApiPropertyOptional({ minLength: 1, maxLength: 255 })
  @IsOmittable()
  @IsString()
  @Length(1, 255)
  name?: string;

  @ApiPropertyOptional({ maxLength: 255 })
  @IsOmittable()
  @IsString()
  @MaxLength(255)
  description?: string;
}

/** The protocols Neutron knows by name; any other is its IANA number, 0..255. */
export const IP_PROTOCOLS = [
  'ah',
  'dccp',
  'egp',
  'esp',
  'gre',
  'hopopt',
  'icmp',
  'icmpv6',
  'igmp',
  'ipip',
  'ipv6-encap',
  'ipv6-frag',
  'ipv6-icmp',
  'ipv6-nonxt',
  'ipv6-opts',
  'ipv6-route',
  'ospf',
  'pgm',
  'rsvp',
  'sctp',
  'tcp',
  'udp',
  'udplite',
  'vrrp',
];
/** Protocols with ports (by name and number): their range is 1..65535, min <= max. */
const PORT_PROTOCOLS = ['tcp', 'udp', 'sctp', 'dccp', 'udplite', '6', '17', '132', '33', '136'];
/** ICMP: port_range_min is the type and port_range_max the code, each 0..255. */
const ICMP_PROTOCOLS = ['icmp', 'icmpv6', 'ipv6-icmp', '1', '58'];

/** The protocol as Neutron compares it: lower case, numbers as text; null when it is none. */
const protocolOf = (value: unknown): string | null =>
  (typeof value === 'string' || typeof value === 'number') && String(value) !== ''
    ? String(value).toLowerCase()
    : null;

const isProtocol = (value: unknown) => {
  const protocol = protocolOf(value);
  return (
    protocol !== null &&
    (IP_PROTOCOLS.includes(protocol) || (/^\d{1,3}$/.test(protocol) && Number(protocol) <= 255))
  );
};

/** What a port bound may be under the rule's protocol; null when it is acceptable. */
function portBoundProblem(
  value: unknown,
  body: Record<string, unknown>,
  which: 'min' | 'max',
): string | null {
  if (typeof value !== 'number') return null; // not an integer: its own message says so
  if (body.protocol === undefined) return 'needs a protocol';
  if (!isProtocol(body.protocol)) return null; // the protocol's own message says why
  const protocol = protocolOf(body.protocol)!;
  const port = value;
  if (PORT_PROTOCOLS.includes(protocol)) {
    if (port < 1 || port > 65535) return 'must be a port, 1..65535';
    const min = body.port_range_min;
    if (which === 'max' && typeof min === 'number' && min > port) {
      return 'must not be below port_range_min';
    }
    return null;
  }
  if (ICMP_PROTOCOLS.includes(protocol)) {
    if (port < 0 || port > 255) return `is the ICMP ${which === 'min' ? 'type' : 'code'}, 0..255`;
    if (which === 'max' && body.port_range_min === undefined) {
      return 'is an ICMP code, which needs its type in port_range_min';
    }
    return null;
  }
  return 'applies only to tcp, udp, udplite, sctp and dccp (and the ICMP type and code)';
}

const portBound = (which: 'min' | 'max') =>
  Satisfies(
    `port_range_${which}`,
    (value, body) => portBoundProblem(value, body, which) === null,
    (value, body) => `port_range_${which} ${portBoundProblem(value, body, which)}`,
  );

/** POST /cloud/security-groups/{id}/rules: forwarded with the group's id. */
export class CreateSecurityGroupRuleBody extends ProjectScopedBody {
  @ApiProperty({ enum: ['ingress', 'egress'] })
  @IsIn(['ingress', 'egress'])
  direction!: 'ingress' | 'egress';

  @ApiPropertyOptional({ enum: ['IPv4', 'IPv6'], default: 'IPv4' })
  @IsOmittable()
  @IsIn(['IPv4', 'IPv6'])
  ethertype?: 'IPv4' | 'IPv6';

  @ApiPropertyOptional({
    oneOf: [{ type: 'string' }, { type: 'integer', minimum: 0, maximum: 255 }],
    description: `${IP_PROTOCOLS.join(', ')}, or an IP protocol number 0..255; omitted: any`,
  })
  @IsOmittable()
  @Satisfies('isProtocol', isProtocol, 'must be a protocol name or number (0..255)')
  protocol?: string | number;

  @ApiPropertyOptional({ description: 'first port (1..65535), or the ICMP type' })
  @IsOmittable()
  @IsInt()
  @portBound('min')
  port_range_min?: number;

  @ApiPropertyOptional({ description: 'last port (1..65535, >= port_range_min), or the ICMP code' })
  @IsOmittable()
  @IsInt()
  @portBound('max')
  port_range_max?: number;

  @ApiPropertyOptional({ example: '0.0.0.0/0', description: "of the ethertype's family" })
  @IsOmittable()
  @IsCidr()
  @Satisfies(
    'prefixMatchesEthertype',
    (value, body) => {
      const version = ipVersionOf(value);
      return version === null || `IPv${version}` === (body.ethertype ?? 'IPv4');
    },
    'must be of the family ethertype names (IPv4 by default)',
  )
  remote_ip_prefix?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'a group of the project; not with a prefix' })
  @IsOmittable()
  @IsUUID()
  @Satisfies(
    'remoteGroupOrPrefix',
    (_value, body) => body.remote_ip_prefix === undefined,
    'excludes remote_ip_prefix: give one of them',
  )
  remote_group_id?: string;

  @ApiPropertyOptional({ maxLength: 255 })
  @IsOmittable()
  @IsString()
  @MaxLength(255)
  description?: string;
}
