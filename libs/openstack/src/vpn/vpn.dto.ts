import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  isFQDN,
  IsIn,
  IsInt,
  isIP,
  IsObject,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsCidr, IsOmittable, parseCidr, Satisfies } from '../network/validators.js';

/** The network of a gateway's local side when the body names none. */
export const DEFAULT_LOCAL_CIDR = '10.250.0.0/24';

/**
 * A gateway's local side is IPv4, /16 to /29: a /29 still leaves the router's address and a
 * few hosts, and a wider network than /16 would take so much private space that it would
 * likely overlap the networks of the peers.
 */
const IsLocalCidr = () =>
  Satisfies(
    'isLocalCidr',
    (value) => {
      const cidr = typeof value === 'string' ? parseCidr(value) : null;
      // What is not a CIDR at all is IsCidr's to report.
      return !cidr || (cidr.version === 4 && cidr.prefix >= 16 && cidr.prefix <= 29);
    },
    'must be an IPv4 network of prefix /16 to /29',
  );

/**
 * A gateway's local side is IPv4 (`local_cidr`), and Neutron refuses a connection whose sides
 * are of different IP versions.
 */
const IsIpv4Cidrs = () =>
  Satisfies(
    'isIpv4Cidr',
    (value) => typeof value !== 'string' || parseCidr(value)?.version !== 6,
    (_value, _body, field) => `each of ${field} must be IPv4, as the gateway's local side is`,
    { each: true },
  );

/** POST /organizations/{org_id}/vpn_gateways. */
export class CreateVpnGatewayBody {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  name!: string;

  @ApiPropertyOptional({ maxLength: 255 })
  @IsOmittable()
  @IsString()
  @MaxLength(255)
  description?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description: 'the external network of its address; default: the first `router:external` one',
  })
  @IsOmittable()
  @IsUUID()
  external_network_id?: string;

  @ApiPropertyOptional({
    default: DEFAULT_LOCAL_CIDR,
    description:
      "the IPv4 network of the gateway's local side: a subnet made with it on its router, which " +
      "the tunnels connect to the peers' networks; written as its network address, /16 to /29",
  })
  @IsOmittable()
  @IsCidr({ exact: true })
  @IsLocalCidr()
  local_cidr?: string;
}

export const ENCRYPTION_ALGORITHMS = ['aes-128', 'aes-192', 'aes-256'];
export const AUTH_ALGORITHMS = ['sha1', 'sha256', 'sha384', 'sha512'];
/** Diffie-Hellman groups of 2048 bits and more; groups 2 and 5 are too weak to offer. */
export const PFS_GROUPS = ['group14', 'group15', 'group16', 'group19', 'group20', 'group21'];

/** What IKE (phase 1) and IPsec (phase 2) share. */
class PhaseOptions {
  @ApiPropertyOptional({ enum: ENCRYPTION_ALGORITHMS, default: 'aes-256' })
  @IsOmittable()
  @IsIn(ENCRYPTION_ALGORITHMS)
  encryption?: string;

  @ApiPropertyOptional({ enum: AUTH_ALGORITHMS, default: 'sha256' })
  @IsOmittable()
  @IsIn(AUTH_ALGORITHMS)
  auth?: string;

  @ApiPropertyOptional({ enum: PFS_GROUPS, default: 'group14' })
  @IsOmittable()
  @IsIn(PFS_GROUPS)
  pfs?: string;

  @ApiPropertyOptional({ minimum: 60, maximum: 86400, description: 'seconds' })
  @IsOmittable()
  @IsInt()
  @Min(60)
  @Max(86400)
  lifetime?: number;
}

/** The peer's IKE policy (defaults: IKEv2, aes-256, sha256, group14, 8 hours). */
export class IkeOptions extends PhaseOptions {
  @ApiPropertyOptional({ enum: ['v1', 'v2'], default: 'v2' })
  @IsOmittable()
  @IsIn(['v1', 'v2'])
  version?: 'v1' | 'v2';

  @ApiPropertyOptional({ enum: ['main', 'aggressive'], default: 'main', description: 'IKEv1' })
  @IsOmittable()
  @IsIn(['main', 'aggressive'])
  phase1_negotiation_mode?: string;
}

/** The peer's IPsec policy (defaults: ESP in tunnel mode, aes-256, sha256, group14, 1 hour). */
export class IpsecOptions extends PhaseOptions {
  @ApiPropertyOptional({ enum: ['esp', 'ah', 'ah-esp'], default: 'esp' })
  @IsOmittable()
  @IsIn(['esp', 'ah', 'ah-esp'])
  transform_protocol?: string;

  @ApiPropertyOptional({ enum: ['tunnel', 'transport'], default: 'tunnel' })
  @IsOmittable()
  @IsIn(['tunnel', 'transport'])
  encapsulation_mode?: string;
}

const IsPeerAddress = () =>
  Satisfies(
    'isPeerAddress',
    (value) => typeof value === 'string' && (isIP(value) || isFQDN(value)),
    'must be an IP address or a host name',
  );

/** Printable ASCII without spaces or double quotes, which IPsec secrets files cannot hold. */
const PSK = /^[!#-~]{8,255}$/;

/** The fields of a peer a PATCH may change too. */
class PeerFields {
  @ApiPropertyOptional({ maxLength: 255 })
  @IsOmittable()
  @IsString()
  @MaxLength(255)
  description?: string;

  @ApiPropertyOptional({ description: 'how the peer identifies itself; default: peer_address' })
  @IsOmittable()
  @IsString()
  @Length(1, 255)
  peer_id?: string;

  @ApiPropertyOptional({ minimum: 68, maximum: 9000, default: 1500 })
  @IsOmittable()
  @IsInt()
  @Min(68)
  @Max(9000)
  mtu?: number;

  @ApiPropertyOptional({ default: true })
  @IsOmittable()
  @IsBoolean()
  admin_state_up?: boolean;
}

/** POST /organizations/{org_id}/vpn_gateways/{gateway_id}/vpn_peers. */
export class CreateVpnPeerBody extends PeerFields {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  name!: string;

  @ApiProperty({ description: "the peer's public IP address or host name" })
  @IsPeerAddress()
  peer_address!: string;

  @ApiProperty({
    type: [String],
    minItems: 1,
    maxItems: 32,
    example: ['192.168.10.0/24'],
    description: "the peer's IPv4 networks, each written as its network address",
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(32)
  @IsCidr({ exact: true, each: true })
  @IsIpv4Cidrs()
  peer_cidrs!: string[];

  @ApiProperty({
    writeOnly: true,
    minLength: 8,
    maxLength: 255,
    description: 'pre-shared key: printable ASCII without spaces or `"`; never shown again',
  })
  @Matches(PSK, { message: 'psk must be 8..255 printable characters without spaces or "' })
  psk!: string;

  @ApiPropertyOptional({ type: IkeOptions })
  @IsOmittable()
  @IsObject()
  @ValidateNested()
  @Type(() => IkeOptions)
  ike?: IkeOptions;

  @ApiPropertyOptional({ type: IpsecOptions })
  @IsOmittable()
  @IsObject()
  @ValidateNested()
  @Type(() => IpsecOptions)
  ipsec?: IpsecOptions;
}

const fixedPolicy = (which: 'ike' | 'ipsec') =>
  Satisfies(
    `${which}Fixed`,
    () => false,
    `${which} cannot change: Neutron refuses to change a policy in use; delete the peer and create it anew`,
  );

/** PATCH .../vpn_peers/{id}: the connection's fields to change, the psk among them. */
export class UpdateVpnPeerBody extends PeerFields {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @IsOmittable()
  @IsString()
  @Length(1, 200)
  name?: string;

  @ApiPropertyOptional({ description: "the peer's public IP address or host name" })
  @IsOmittable()
  @IsPeerAddress()
  peer_address?: string;

  @ApiPropertyOptional({
    type: [String],
    minItems: 1,
    maxItems: 32,
    description: 'replaces all of them (the peer gets a new endpoint group)',
  })
  @IsOmittable()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(32)
  @IsCidr({ exact: true, each: true })
  @IsIpv4Cidrs()
  peer_cidrs?: string[];

  @ApiPropertyOptional({ writeOnly: true, minLength: 8, maxLength: 255, description: 'a new key' })
  @IsOmittable()
  @Matches(PSK, { message: 'psk must be 8..255 printable characters without spaces or "' })
  psk?: string;

  @ApiPropertyOptional({ description: 'not accepted: the policies are fixed once created' })
  @IsOmittable()
  @fixedPolicy('ike')
  ike?: unknown;

  @ApiPropertyOptional({ description: 'not accepted: the policies are fixed once created' })
  @IsOmittable()
  @fixedPolicy('ipsec')
  ipsec?: unknown;
}
