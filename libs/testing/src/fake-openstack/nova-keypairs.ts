import { createHash, generateKeyPairSync } from 'node:crypto';
import { badRequest, type FakeReply, type FakeRequest, json } from './fake-service.js';

/*
 * Nova's `os-keypairs` for the fake Nova (nova.ts routes to these): import or generate, the
 * list's fields, Nova's error answers.
 */

/** Nova's keypair names before microversion 2.92 (which adds `.` and `@`). */
const NOVA_KEYPAIR_NAME = /^[A-Za-z0-9_ -]{1,255}$/;

export const listedKeypair = (keypair: Record<string, unknown>) => ({
  name: keypair.name,
  public_key: keypair.public_key,
  fingerprint: keypair.fingerprint,
  type: keypair.type,
});

export const keypairNotFound = (name: string): FakeReply =>
  json(404, {
    itemNotFound: { code: 404, message: `Keypair ${decodeURIComponent(name)} not found for user` },
  });

let keypairSerial = 0;

/**
 * Imports a public key, or (no `public_key`, as Nova does before 2.92) generates an RSA
 * keypair and answers its private key this once.
 */
export function createKeypair(
  stored: Map<string, Record<string, unknown>>,
  r: FakeRequest,
): FakeReply {
  const body = (r.body as { keypair?: { name?: unknown; public_key?: unknown } } | undefined)
    ?.keypair;
  if (!body || typeof body.name !== 'string' || !NOVA_KEYPAIR_NAME.test(body.name))
    return badRequest('Keypair data is invalid: Keypair name contains unsafe characters');
  if (stored.has(body.name)) {
    return json(409, {
      conflictingRequest: { code: 409, message: `Key pair '${body.name}' already exists.` },
    });
  }
  let publicKey: string;
  let privateKey: string | undefined;
  if (body.public_key === undefined) {
    ({ publicKey, privateKey } = generatedKeypair());
  } else if (typeof body.public_key === 'string' && sshBlob(body.public_key)) {
    publicKey = body.public_key;
  } else {
    return badRequest('Keypair data is invalid: failed to generate fingerprint');
  }
  const keypair = {
    id: ++keypairSerial,
    name: body.name,
    public_key: publicKey,
    fingerprint: fingerprintOf(sshBlob(publicKey)!),
    type: 'ssh',
    deleted: false,
    created_at: new Date().toISOString(),
    updated_at: null,
    deleted_at: null,
  };
  stored.set(body.name, keypair);
  return json(201, {
    keypair: { ...listedKeypair(keypair), ...(privateKey ? { private_key: privateKey } : {}) },
  });
}

/** The key blob of an OpenSSH public key line, when it starts with its own type. */
function sshBlob(line: string): Buffer | null {
  const [type, base64] = line.trim().split(/ +/);
  if (!type || !base64) return null;
  const blob = Buffer.from(base64, 'base64');
  if (blob.length < 4) return null;
  const length = blob.readUInt32BE(0);
  return blob.toString('latin1', 4, 4 + length) === type ? blob : null;
}

/** Nova's fingerprint: the MD5 of the key blob, colon-separated hex. */
const fingerprintOf = (blob: Buffer) =>
  createHash('md5')
    .update(blob)
    .digest('hex')
    .replace(/(..)(?!$)/g, '$1:');

function generatedKeypair(): { publicKey: string; privateKey: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = publicKey.export({ format: 'jwk' });
  const field = (bytes: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    return Buffer.concat([length, bytes]);
  };
  // SSH mpints are signed: a leading byte with its high bit set takes a zero byte before it.
  const mpint = (base64url: string) => {
    const bytes = Buffer.from(base64url, 'base64url');
    return field(bytes[0] & 0x80 ? Buffer.concat([Buffer.alloc(1), bytes]) : bytes);
  };
  const blob = Buffer.concat([field(Buffer.from('ssh-rsa')), mpint(jwk.e!), mpint(jwk.n!)]);
  return {
    publicKey: `ssh-rsa ${blob.toString('base64')} Generated-by-Nova`,
    privateKey: privateKey.export({ type: 'pkcs1', format: 'pem' }) as string,
  };
}
