import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KeystoneProjects } from '@platform/openstack';
import { FAKE_IMAGES, seedVolume } from '@platform/testing';
import { DataSource } from 'typeorm';
import { seedMember } from '../support/factories.js';
import { bearer } from '../support/identity.js';
import { type CloudWorld, createCloudWorld } from './support.js';

/** An SSH string field: its length, then its bytes. */
const field = (bytes: Buffer) => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
};

/** A fresh public key line as `ssh-keygen` writes it (ed25519, ecdsa-sha2-nistp256 or ssh-rsa). */
function publicKeyLine(
  type: 'ed25519' | 'ecdsa' | 'rsa' = 'ed25519',
  comment = 'me@laptop',
): string {
  if (type === 'rsa') {
    const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({
      format: 'jwk',
    });
    // SSH mpints are signed: a leading byte with its high bit set takes a zero byte first.
    const mpint = (value: string) => {
      const bytes = Buffer.from(value, 'base64url');
      return field(bytes[0] & 0x80 ? Buffer.concat([Buffer.alloc(1), bytes]) : bytes);
    };
    const blob = Buffer.concat([field(Buffer.from('ssh-rsa')), mpint(jwk.e!), mpint(jwk.n!)]);
    return `ssh-rsa ${blob.toString('base64')} ${comment}`;
  }
  if (type === 'ed25519') {
    const { publicKey } = generateKeyPairSync('ed25519');
    const x = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
    const blob = Buffer.concat([field(Buffer.from('ssh-ed25519')), field(x)]);
    return `ssh-ed25519 ${blob.toString('base64')} ${comment}`;
  }
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const point = Buffer.concat([
    Buffer.from([4]),
    Buffer.from(jwk.x!, 'base64url'),
    Buffer.from(jwk.y!, 'base64url'),
  ]);
  const blob = Buffer.concat([
    field(Buffer.from('ecdsa-sha2-nistp256')),
    field(Buffer.from('nistp256')),
    field(point),
  ]);
  return `ecdsa-sha2-nistp256 ${blob.toString('base64')} ${comment}`;
}

describe('cloud SSH keypairs (Nova) and volumes (Cinder)', () => {
  let w: CloudWorld;
  const get = (path: string, jwt = w.owner.jwt) => w.t.request().get(path).set(bearer(jwt));
  const post = (path: string, body: unknown, jwt = w.owner.jwt) =>
    w.t
      .request()
      .post(path)
      .set(bearer(jwt))
      .send(body as object);
  const del = (path: string, jwt = w.owner.jwt) => w.t.request().delete(path).set(bearer(jwt));
  const keypairs = (projectId = w.projectId) => `/cloud/ssh-keypairs?project_id=${projectId}`;
  const keypair = (name: string, projectId = w.projectId) =>
    `/cloud/ssh-keypairs/${encodeURIComponent(name)}?project_id=${projectId}`;
  const keystoneOf = (projectId: string) => w.t.get(KeystoneProjects).idOf('project', projectId);
  /** The name Nova knows a keypair of the project by: prefixed with its Keystone project. */
  const novaName = async (name: string, projectId = w.projectId) =>
    `${await keystoneOf(projectId)}_${name}`;
  const fields = (res: { body: { details: { fields: Array<{ field: string }> } } }) =>
    res.body.details.fields.map((f) => f.field);

  beforeAll(async () => {
    w = await createCloudWorld();
  });
  afterAll(async () => {
    await w?.close();
  });

  describe('SSH keypairs', () => {
    it('imports a public key (201): forwarded as {"keypair": {name, public_key}}, answered as Nova answers it, listed unwrapped', async () => {
      const publicKey = publicKeyLine();
      const created = await post(keypairs(), { name: 'laptop', public_key: publicKey }).expect(201);
      expect(created.body.metadata.project_id).toBe(w.projectId);
      expect(created.body.data).toEqual({
        name: 'laptop',
        public_key: publicKey,
        fingerprint: expect.stringMatching(/^([0-9a-f]{2}:){15}[0-9a-f]{2}$/),
        type: 'ssh',
      });
      const sent = w.fake.callsTo('compute', 'POST').at(-1)!;
      expect(sent).toMatchObject({
        path: '/os-keypairs',
        projectId: await keystoneOf(w.projectId),
        body: { keypair: { name: await novaName('laptop'), public_key: publicKey } },
      });

      const listed = await get(keypairs()).expect(200);
      expect(listed.body.metadata.count).toBe(1);
      expect(listed.body.data).toEqual([created.body.data]);
      expect(w.fake.callsTo('compute', 'GET').at(-1)!.path).toBe('/os-keypairs');
    });

    it('accepts ecdsa and rsa keys, keys without a comment and a pasted trailing newline (trimmed before it is sent)', async () => {
      const ecdsa = publicKeyLine('ecdsa');
      await post(keypairs(), { name: 'ci runner', public_key: `${ecdsa}\n` }).expect(201);
      expect(w.fake.callsTo('compute', 'POST').at(-1)!.body).toEqual({
        keypair: { name: await novaName('ci runner'), public_key: ecdsa },
      });
      const rsa = publicKeyLine('rsa', 'deploy key of the web team');
      const imported = await post(keypairs(), { name: 'deploy', public_key: rsa }).expect(201);
      expect(imported.body.data.public_key).toBe(rsa);
      const bare = publicKeyLine().split(' ').slice(0, 2).join(' ');
      const res = await post(keypairs(), { name: 'bare_key-1', public_key: bare }).expect(201);
      expect(res.body.data.public_key).toBe(bare);
    });

    it('without public_key Nova generates the keypair: its private_key is answered by the create only, never listed', async () => {
      const created = await post(keypairs(), { name: 'generated' }).expect(201);
      expect(w.fake.callsTo('compute', 'POST').at(-1)!.body).toEqual({
        keypair: { name: await novaName('generated') },
      });
      expect(created.body.data).toMatchObject({
        name: 'generated',
        type: 'ssh',
        public_key: expect.stringMatching(/^ssh-rsa AAAA/),
        private_key: expect.stringMatching(/^-----BEGIN RSA PRIVATE KEY-----\n/),
      });
      const listed = await get(keypairs()).expect(200);
      const entry = listed.body.data.find((k: { name: string }) => k.name === 'generated');
      expect(entry).toEqual({
        name: 'generated',
        public_key: created.body.data.public_key,
        fingerprint: created.body.data.fingerprint,
        type: 'ssh',
      });
      expect(JSON.stringify(listed.body)).not.toContain('PRIVATE KEY');
    });

    it('takes project_id from the body of a create, and answers 422 without one anywhere', async () => {
      await post('/cloud/ssh-keypairs', { name: 'from-body', project_id: w.projectId }).expect(201);
      const missing = await post('/cloud/ssh-keypairs', { name: 'nowhere' }).expect(422);
      expect(missing.body).toMatchObject({
        code: 'validation_failed',
        details: { fields: [{ field: 'project_id' }] },
      });
      await w.t.request().get(keypairs()).expect(401);
    });

    it('validates name and public_key before calling upstream (422 naming the field, nothing sent)', async () => {
      const before = w.fake.callsTo('compute', 'POST').length;
      const key = publicKeyLine();
      const [, blob] = key.split(' ');
      for (const name of [
        '',
        'with.dot',
        'slash/name',
        ' leading',
        'trailing ',
        'ümlaut',
        'x'.repeat(256),
        42,
      ]) {
        const res = await post(keypairs(), { name, public_key: key }).expect(422);
        expect(res.body.code).toBe('validation_failed');
        expect(fields(res)).toEqual(['name']);
      }
      const badKeys = [
        'not a key',
        `ssh-dss ${blob} old@host`, // a type Nova and OpenSSH no longer take
        `ssh-rsa ${blob} me@laptop`, // an ed25519 blob under another type's name
        `ssh-ed25519 ${blob.slice(0, 40)} me@laptop`, // cut short
        `ssh-ed25519 ${blob}!! me@laptop`,
        `ssh-ed25519 ${blob} me@laptop\nssh-ed25519 ${blob} twice`,
        '',
        7,
      ];
      for (const publicKey of badKeys) {
        const res = await post(keypairs(), { name: 'valid name', public_key: publicKey }).expect(
          422,
        );
        expect(fields(res)).toEqual(['public_key']);
      }
      const both = await post(keypairs(), { name: 'a.b', public_key: 'ssh-rsa' }).expect(422);
      expect(fields(both).sort()).toEqual(['name', 'public_key']);
      expect(w.fake.callsTo('compute', 'POST')).toHaveLength(before);
    });

    it('answers a duplicate name with 409 conflict, in the name the tenant knows', async () => {
      await post(keypairs(), { name: 'twice', public_key: publicKeyLine() }).expect(201);
      const res = await post(keypairs(), { name: 'twice', public_key: publicKeyLine() }).expect(
        409,
      );
      expect(res.body).toMatchObject({
        code: 'conflict',
        details: {
          provider: 'openstack',
          upstream_status: 409,
          message: "A keypair named 'twice' already exists in this project",
        },
      });
    });

    it('deletes by name (204), spaces included; an unknown name is 404, a name that cannot exist is 404 without a call', async () => {
      await post(keypairs(), { name: 'old key', public_key: publicKeyLine() }).expect(201);
      await del(keypair('old key')).expect(204);
      expect(w.fake.callsTo('compute', 'DELETE').at(-1)!.path).toBe(
        `/os-keypairs/${encodeURIComponent(await novaName('old key'))}`,
      );
      expect(
        (await get(keypairs()).expect(200)).body.data.map((k: { name: string }) => k.name),
      ).not.toContain('old key');
      const again = await del(keypair('old key')).expect(404);
      expect(again.body.code).toBe('not_found');

      const calls = w.fake.callsTo('compute', 'DELETE').length;
      for (const name of ['bad.name', 'semi;colon', '%2e%2e']) {
        const res = await del(`/cloud/ssh-keypairs/${name}?project_id=${w.projectId}`).expect(404);
        expect(res.body.code).toBe('not_found');
      }
      expect(w.fake.callsTo('compute', 'DELETE')).toHaveLength(calls);
    });

    it("keeps projects apart: another project's keypair is neither listed nor deletable there (404)", async () => {
      await post(keypairs(), { name: 'prod-only', public_key: publicKeyLine() }).expect(201);
      const other = await get(keypairs(w.otherProjectId)).expect(200);
      expect(other.body.data.map((k: { name: string }) => k.name)).not.toContain('prod-only');
      const res = await del(keypair('prod-only', w.otherProjectId)).expect(404);
      expect(res.body.code).toBe('not_found');
      // The same name is free in the other project.
      await post(keypairs(w.otherProjectId), {
        name: 'prod-only',
        public_key: publicKeyLine(),
      }).expect(201);
      await get(keypairs(), w.stranger.jwt).expect(404);
      await del(keypair('prod-only'), w.stranger.jwt).expect(404);
      // Nova keeps keypairs per user, and every tenant is the one service user there: the
      // prefix is what keeps them apart.
      const inNova = w.fake.resources
        .everywhere('keypairs')
        .map((k) => k.name)
        .filter((n) => String(n).endsWith('_prod-only'));
      expect(inNova.sort()).toEqual(
        [await novaName('prod-only'), await novaName('prod-only', w.otherProjectId)].sort(),
      );
    });

    it("a server boots with the project's own keypair only, and shows it by the project's name", async () => {
      await post(keypairs(), { name: 'boot', public_key: publicKeyLine() }).expect(201);
      const server = {
        name: 'with-key',
        flavorRef: 'm1.small',
        imageRef: FAKE_IMAGES[0].id,
        networks: [],
        key_name: 'boot',
      };
      const created = await post(`/cloud/servers?project_id=${w.projectId}`, server).expect(202);
      expect(created.body.data.key_name).toBe('boot');
      expect(w.fake.callsTo('compute', 'POST').at(-1)!.body).toMatchObject({
        server: { key_name: await novaName('boot') },
      });
      const shown = await get(
        `/cloud/servers/${created.body.data.id}?project_id=${w.projectId}`,
      ).expect(200);
      expect(shown.body.data.key_name).toBe('boot');
      // The other project has no keypair of that name, whatever this one has.
      const refused = await post(`/cloud/servers?project_id=${w.otherProjectId}`, server).expect(
        422,
      );
      expect(refused.body.code).toBe('upstream_rejected');
    });

    it('Axis A: a viewer lists but neither creates nor deletes (403 forbidden); a developer does both', async () => {
      await get(keypairs(), w.viewer.jwt).expect(200);
      const refused = await post(keypairs(), { name: 'viewer' }, w.viewer.jwt).expect(403);
      expect(refused.body.code).toBe('forbidden');
      await post(keypairs(), { name: 'dev', public_key: publicKeyLine() }, w.developer.jwt).expect(
        201,
      );
      const noDelete = await del(keypair('dev'), w.viewer.jwt).expect(403);
      expect(noDelete.body.code).toBe('forbidden');
      await del(keypair('dev'), w.developer.jwt).expect(204);
    });

    it('Axis B: creating a keypair needs the openstack kind server Available; listing does not', async () => {
      const before = w.fake.callsTo('compute', 'POST').length;
      const refused = await post(keypairs(w.bareProjectId), {
        name: 'bare',
        public_key: publicKeyLine(),
      }).expect(403);
      expect(refused.body.code).toBe('openstack_capability_not_enabled');
      await get(keypairs(w.bareProjectId)).expect(200);
      await w.grant(w.bareProjectId, 'openstack', ['volume']);
      await post(keypairs(w.bareProjectId), { name: 'bare' }).expect(403);
      expect(w.fake.callsTo('compute', 'POST')).toHaveLength(before);
      await w.grant(w.bareProjectId, 'openstack', ['server']);
      await post(keypairs(w.bareProjectId), { name: 'bare', public_key: publicKeyLine() }).expect(
        201,
      );
    });

    it('audits creates and deletes as ssh_keypairs.create / ssh_keypairs.delete, never with the private key', async () => {
      await post(keypairs(), { name: 'audited' }).expect(201);
      await del(keypair('audited')).expect(204);
      const rows: Array<{
        action: string;
        target_type: string;
        project_id: string;
        actor_account_id: string;
        details: Record<string, unknown>;
      }> = await w.t
        .get(DataSource)
        .query(
          `SELECT action, target_type, project_id, actor_account_id, details FROM audit_log WHERE target_id = $1 ORDER BY created_at, action`,
          ['audited'],
        );
      expect(rows.map((r) => r.action).sort()).toEqual([
        'ssh_keypairs.create',
        'ssh_keypairs.delete',
      ]);
      expect(
        rows.every(
          (r) =>
            r.target_type === 'ssh_keypair' &&
            r.project_id === w.projectId &&
            r.actor_account_id === w.owner.accountId,
        ),
      ).toBe(true);
      const created = rows.find((r) => r.action === 'ssh_keypairs.create')!;
      expect(created.details).toEqual({ fingerprint: expect.any(String), generated: true });
      // A request the cloud refused changed nothing and is not audited.
      await post(keypairs(), { name: 'audited-once', public_key: publicKeyLine() }).expect(201);
      await post(keypairs(), { name: 'audited-once', public_key: publicKeyLine() }).expect(409);
      const once = await w.t
        .get(DataSource)
        .query(`SELECT count(*)::int AS n FROM audit_log WHERE target_id = 'audited-once'`);
      expect(once[0].n).toBe(1);
    });
  });

  describe('volumes', () => {
    it("lists the project's volumes (Cinder volumes/detail) and shows one", async () => {
      const keystone = await keystoneOf(w.projectId);
      const data = seedVolume(w.fake.resources, keystone, { name: 'data', size: 20 });
      const boot = seedVolume(w.fake.resources, keystone, {
        name: 'boot',
        bootable: 'true',
        status: 'in-use',
        attachments: [{ server_id: randomUUID(), device: '/dev/vda' }],
      });
      seedVolume(w.fake.resources, await keystoneOf(w.otherProjectId), { name: 'elsewhere' });

      const listed = await get(`/cloud/volumes?project_id=${w.projectId}`).expect(200);
      expect(listed.body.metadata.count).toBe(2);
      expect(listed.body.data.map((v: { id: string }) => v.id).sort()).toEqual(
        [data.id, boot.id].sort(),
      );
      const sent = w.fake.callsTo('block-storage').at(-1)!;
      expect(sent).toMatchObject({ method: 'GET', path: '/volumes/detail', projectId: keystone });

      const shown = await get(`/cloud/volumes/${boot.id}?project_id=${w.projectId}`).expect(200);
      expect(shown.body.data).toMatchObject({
        id: boot.id,
        name: 'boot',
        status: 'in-use',
        size: 10,
        bootable: 'true',
        volume_type: '__DEFAULT__',
        attachments: [{ device: '/dev/vda' }],
      });
      expect(w.fake.callsTo('block-storage').at(-1)!.path).toBe(`/volumes/${boot.id}`);
    });

    it("keeps projects apart: another project's volume is 404 here; unknown and malformed ids too", async () => {
      const theirs = seedVolume(w.fake.resources, await keystoneOf(w.otherProjectId));
      const res = await get(`/cloud/volumes/${theirs.id}?project_id=${w.projectId}`).expect(404);
      expect(res.body.code).toBe('not_found');
      await get(`/cloud/volumes/${randomUUID()}?project_id=${w.projectId}`).expect(404);
      const calls = w.fake.callsTo('block-storage').length;
      await get(`/cloud/volumes/not-a-uuid?project_id=${w.projectId}`).expect(404);
      expect(w.fake.callsTo('block-storage')).toHaveLength(calls);
      await get(`/cloud/volumes?project_id=${w.projectId}`, w.stranger.jwt).expect(404);
      await get(`/cloud/volumes?project_id=${w.strangerProjectId}`).expect(404);
    });

    it('Axis A: reading volumes needs compute:read (viewer yes, billing manager no); no project_id is 422', async () => {
      await get(`/cloud/volumes?project_id=${w.projectId}`, w.viewer.jwt).expect(200);
      const billing = await seedMember(w.t, w.owner, 'billing@cloud.example', 'billing_manager');
      const refused = await get(`/cloud/volumes?project_id=${w.projectId}`, billing.jwt).expect(
        403,
      );
      expect(refused.body.code).toBe('forbidden');
      await get('/cloud/volumes').expect(422);
    });

    it('maps a failing Cinder to 502 provider_unavailable (retryable) after the read retries', async () => {
      w.fake.fail({ service: 'block-storage', status: 503, times: 3 });
      const res = await get(`/cloud/volumes?project_id=${w.projectId}`).expect(502);
      expect(res.body).toMatchObject({ code: 'provider_unavailable', retryable: true });
    });
  });
});
