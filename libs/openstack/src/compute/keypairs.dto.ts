import { Param, type PipeTransform } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CoreErrorCode, CoreException } from '@platform/core';
import { Transform } from 'class-transformer';
import {
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  registerDecorator,
  type ValidationOptions,
} from 'class-validator';

/**
 * Nova's keypair names at the microversion the platform speaks (2.79): letters, digits, `_`,
 * `-` and inner spaces. `.` and `@` only arrive with 2.92, which also drops the generated keys
 * this API offers, so a name Nova would refuse is refused here first. 1 to 222 characters:
 * Nova's 255 less the tenant's prefix (keypair-names.ts).
 */
export const KEYPAIR_NAME = /^(?=.{1,222}$)[A-Za-z0-9_-](?:[A-Za-z0-9_ -]*[A-Za-z0-9_-])?$/;

/** The key types OpenSSH and Nova both accept, then the base64 blob and an optional comment. */
const PUBLIC_KEY =
  /^(ssh-rsa|ssh-ed25519|ecdsa-sha2-nistp(?:256|384|521)) +([A-Za-z0-9+/]+={0,2})(?: +[^\r\n]*)?$/;

/**
 * Whether a value is an OpenSSH public key line. Its blob is a run of length-prefixed fields,
 * the first its own key type: a truncated paste, or a blob under another type's name, fails
 * here rather than as Nova's "failed to generate fingerprint".
 */
export function isSshPublicKey(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const match = PUBLIC_KEY.exec(value);
  if (!match || match[2].length % 4 !== 0) return false;
  const [, type, base64] = match;
  const fields = sshFields(Buffer.from(base64, 'base64'));
  if (!fields || fields[0].toString('latin1') !== type) return false;
  // ssh-ed25519: the 32-byte key; ssh-rsa: e and n; ecdsa: its curve again, then the point.
  if (type === 'ssh-ed25519') return fields.length === 2 && fields[1].length === 32;
  if (type === 'ssh-rsa') return fields.length === 3;
  return fields.length === 3 && `ecdsa-sha2-${fields[1].toString('latin1')}` === type;
}

/** The fields of an SSH key blob, or null when a length runs past its end. */
function sshFields(blob: Buffer): Buffer[] | null {
  const fields: Buffer[] = [];
  for (let at = 0; at < blob.length;) {
    if (at + 4 > blob.length) return null;
    const end = at + 4 + blob.readUInt32BE(at);
    if (end > blob.length) return null;
    fields.push(blob.subarray(at + 4, end));
    at = end;
  }
  return fields.length > 0 ? fields : null;
}

function IsSshPublicKey(options?: ValidationOptions): PropertyDecorator {
  return (target, property) =>
    registerDecorator({
      name: 'isSshPublicKey',
      target: target.constructor,
      propertyName: property as string,
      options: {
        message:
          'public_key must be one OpenSSH public key line: ssh-rsa, ssh-ed25519 or ecdsa-sha2-nistp256/384/521, the base64 key, an optional comment',
        ...options,
      },
      validator: { validate: isSshPublicKey },
    });
}

const NAME_MESSAGE =
  'name must be 1 to 222 letters, digits, `_`, `-` or spaces, not starting or ending with a space';

/** POST /cloud/ssh-keypairs: forwarded to Nova as `{"keypair": {name, public_key}}`. */
export class CreateKeypairBody {
  @ApiPropertyOptional({ format: 'uuid', description: 'the project (or the query parameter)' })
  @IsOptional()
  @IsUUID()
  project_id?: string;

  @ApiProperty({
    minLength: 1,
    maxLength: 222,
    pattern: KEYPAIR_NAME.source,
    description: "the keypair's name, unique in the project; also its id in paths",
  })
  @IsString()
  @Matches(KEYPAIR_NAME, { message: NAME_MESSAGE })
  name!: string;

  @ApiPropertyOptional({
    maxLength: 16384,
    description:
      'an OpenSSH public key line to import; omitted, the cloud generates a keypair and the answer carries its `private_key`, once',
    example:
      'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHFjx/ZYOnsJrMHJLk7a8V9G6GXh+MSXMK3Ok49mIoHS me@laptop',
  })
  @IsOptional()
  // `cat id_ed25519.pub` ends in a newline that clients keep when they paste it.
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @MaxLength(16384)
  @IsSshPublicKey()
  public_key?: string;
}

/**
 * The keypair path parameter, which is its name (the route opts out of the uuid rule with
 * `@NotIdParams('id')`). A value that cannot be a keypair name names nothing: 404, as a
 * malformed id, and nothing is sent upstream.
 */
export const KeypairNameParam = (name: string): ParameterDecorator =>
  Param(name, new KeypairNamePipe());

class KeypairNamePipe implements PipeTransform<unknown, string> {
  transform(value: unknown): string {
    if (typeof value !== 'string' || !KEYPAIR_NAME.test(value))
      throw new CoreException(CoreErrorCode.NotFound, 'Resource not found');
    return value;
  }
}
