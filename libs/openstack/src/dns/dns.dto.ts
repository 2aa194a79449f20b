import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsEmail,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  type ValidationArguments,
} from 'class-validator';
import {
  isRecordType,
  RECORD_TYPES,
  type RecordType,
  recordNameProblem,
  recordsProblem,
  zoneNameProblem,
} from './dns-names.js';

/** Designate's limits: TTLs are 32-bit signed, descriptions at most 160 characters. */
const MAX_TTL = 2_147_483_647;
const MAX_DESCRIPTION = 160;
const MAX_RECORDS = 100;

/** A property checked by a function answering why the value is wrong (or null). */
function Checked(
  name: string,
  problem: (value: unknown, args: ValidationArguments) => string | null,
): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown, args) => problem(value, args!) === null,
        defaultMessage: (args) => problem(args!.value, args!) ?? '',
      },
    });
}

const textProblem =
  (check: (text: string) => string | null) => (value: unknown, args: ValidationArguments) =>
    typeof value === 'string' ? check(value) : `${args.property} must be a string`;

const IsZoneName = () => Checked('isZoneName', textProblem(zoneNameProblem));
const IsRecordName = () => Checked('isRecordName', textProblem(recordNameProblem));

/**
 * The records fit the record set's type: the body's own `type`, or (on an update) the path's,
 * which the service checks with the same function.
 */
const IsRecordsOfType = () =>
  Checked('isRecordsOfType', (value, args) => {
    const type = (args.object as { type?: unknown }).type;
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return null;
    return isRecordType(type) ? recordsProblem(type, value) : null;
  });

/** Types are case-insensitive on the way in (`mx`), upper case from then on. */
const UpperCase = () =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? value.toUpperCase() : value,
  );

/** POST /dns/zones: a Designate zone (`PRIMARY`). */
export class CreateZoneBody {
  @ApiPropertyOptional({ format: 'uuid', description: 'the project (or the query parameter)' })
  @IsOptional()
  @IsUUID()
  project_id?: string;

  @ApiProperty({
    example: 'example.com',
    description: 'a DNS name of at least two labels, with or without the final dot',
  })
  @IsZoneName()
  name!: string;

  @ApiProperty({ example: 'hostmaster@example.com', description: "the SOA's contact address" })
  @IsString()
  @IsEmail()
  @MaxLength(255)
  email!: string;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_TTL, description: 'seconds' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_TTL)
  ttl?: number;

  @ApiPropertyOptional({ maxLength: MAX_DESCRIPTION })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_DESCRIPTION)
  description?: string;
}

/** The data of a record set: shared by create and update. */
class RecordData {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_TTL, description: "seconds; else the zone's" })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_TTL)
  ttl?: number;

  @ApiPropertyOptional({ maxLength: MAX_DESCRIPTION })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_DESCRIPTION)
  description?: string;
}

const RECORDS_DESCRIPTION =
  'per type: A an IPv4 address; AAAA an IPv6 address; CNAME, NS, PTR a host name; MX "<priority> <host>"; SRV "<priority> <weight> <port> <target>"; TXT one or more quoted strings of at most 255 bytes each; CAA "<flags> <tag> \\"<value>\\"". Host names are made absolute (final dot).';

/** POST /dns/zones/{id}/records: a Designate record set. */
export class CreateRecordBody extends RecordData {
  @ApiPropertyOptional({ format: 'uuid', description: 'the project (or the query parameter)' })
  @IsOptional()
  @IsUUID()
  project_id?: string;

  @ApiProperty({
    example: 'www',
    description:
      '`@` for the apex, relative to the zone (`www`), or absolute with the final dot (`www.example.com.`); a name without the final dot that already ends in the zone name is taken as that name',
  })
  @IsRecordName()
  name!: string;

  @ApiProperty({ enum: RECORD_TYPES, description: 'case-insensitive' })
  @UpperCase()
  @IsIn(RECORD_TYPES)
  type!: RecordType;

  @ApiProperty({
    type: [String],
    minItems: 1,
    maxItems: MAX_RECORDS,
    description: RECORDS_DESCRIPTION,
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_RECORDS)
  @ArrayUnique()
  @IsString({ each: true })
  @IsRecordsOfType()
  records!: string[];
}

/** PATCH /dns/zones/{zone_id}/records/{name}/{type}: what changes; at least one field. */
export class UpdateRecordBody extends RecordData {
  @ApiPropertyOptional({
    type: [String],
    minItems: 1,
    maxItems: MAX_RECORDS,
    description: `replaces the records; ${RECORDS_DESCRIPTION}`,
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_RECORDS)
  @ArrayUnique()
  @IsString({ each: true })
  records?: string[];
}

/** The path of one record set: its zone, owner name and type. */
export class RecordPath {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  zone_id!: string;

  @ApiProperty({ example: 'www', description: 'as in a create: `@`, relative or absolute' })
  @IsRecordName()
  name!: string;

  @ApiProperty({ enum: RECORD_TYPES, description: 'case-insensitive' })
  @UpperCase()
  @IsIn(RECORD_TYPES)
  type!: RecordType;
}
