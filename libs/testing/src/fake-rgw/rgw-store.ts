import { randomBytes, randomUUID } from 'node:crypto';

/** An answer of the fake: JSON for Admin Ops, XML (a string) for S3. */
export interface RgwReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface FakeRgwQuota {
  enabled: boolean;
  /** Bytes, a signed 64-bit number as RGW keeps it; negative: no limit. */
  max_size: bigint;
  max_objects: number;
}

export interface FakeRgwUser {
  uid: string;
  tenant: string;
  displayName: string;
  suspended: boolean;
  quota: FakeRgwQuota;
  /** Access key → secret key. */
  keys: Map<string, string>;
}

export interface FakeRgwBucket {
  tenant: string;
  name: string;
  owner: string;
  id: string;
  createdAt: Date;
  size: number;
  objects: number;
}

/** The caller of a request, once its signature checked out. */
export interface Caller {
  accessKey: string;
  /** null: the platform's admin key. */
  uid: string | null;
}

type Params = Map<string, string>;

/** RGW's `rgw_rounded_kb`: bytes to KB rounded up, computed on an unsigned 64-bit number. */
export const roundedKb = (bytes: bigint | number) =>
  BigInt.asIntN(64, BigInt.asUintN(64, BigInt(bytes) + 1023n) / 1024n);

const quotaDump = (q: FakeRgwQuota) => ({
  enabled: q.enabled,
  check_on_raw: false,
  max_size: q.max_size,
  max_size_kb: roundedKb(q.max_size),
  max_objects: q.max_objects,
});

const stats = (size: number, objects: number) => ({
  size,
  size_actual: size,
  size_utilized: size,
  size_kb: roundedKb(size),
  size_kb_actual: roundedKb(size),
  size_kb_utilized: roundedKb(size),
  num_objects: objects,
});

/** Admin Ops' error answer. */
export const adminError = (status: number, code: string, message?: string): RgwReply => ({
  status,
  body: { Code: code, ...(message ? { Message: message } : {}), RequestId: 'tx0', HostId: 'fake' },
});

/** S3's error answer. */
export const s3Error = (status: number, code: string, message = code): RgwReply => ({
  status,
  headers: { 'content-type': 'application/xml' },
  body: `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message><RequestId>tx0</RequestId><HostId>fake</HostId></Error>`,
});

const ok = (body?: unknown): RgwReply => ({ status: 200, body });
const BOOLEANS: Record<string, boolean> = { true: true, '1': true, false: false, '0': false };
const newSecret = () => randomBytes(30).toString('base64');
const newAccessKey = () =>
  Array.from(randomBytes(20), (b) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'[b % 36]).join('');

/**
 * The state of a fake RGW and its Admin Ops and S3 semantics: tenanted users (`tenant$name`)
 * with S3 keys, quota and suspension; buckets unique per tenant, owned by the user whose key
 * created them. Answers are shaped as RGW's (JSON dumps, S3-style error codes).
 */
export class RgwStore {
  readonly users = new Map<string, FakeRgwUser>();
  /** By `<tenant>/<name>` (`<name>` alone in the empty tenant). */
  readonly buckets = new Map<string, FakeRgwBucket>();
  private readonly keyOwners = new Map<string, string | null>();

  constructor(
    private readonly admin: { accessKey: string; secretKey: string },
    private readonly now: () => Date,
  ) {
    this.keyOwners.set(admin.accessKey, null);
  }

  /** The secret of a key (the admin key's included), for signature checks. */
  secretOf(accessKey: string): string | undefined {
    if (accessKey === this.admin.accessKey) return this.admin.secretKey;
    const uid = this.keyOwners.get(accessKey);
    return uid ? this.users.get(uid)?.keys.get(accessKey) : undefined;
  }

  callerOf(accessKey: string): Caller {
    return { accessKey, uid: this.keyOwners.get(accessKey) ?? null };
  }

  /** Adds `bytes` in one object to a bucket, as an upload would. */
  putObject(tenant: string, bucket: string, bytes: number): void {
    const found = this.buckets.get(tenant ? `${tenant}/${bucket}` : bucket);
    if (!found) throw new Error(`no bucket ${tenant}/${bucket}`);
    found.size += bytes;
    found.objects += 1;
  }

  adminOp(method: string, resource: string, q: Params): RgwReply {
    const route = `${method} ${resource}`;
    if (route === 'GET user') return q.has('quota') ? this.quotaInfo(q) : this.userInfo(q);
    if (route === 'PUT user') {
      if (q.has('key')) return this.createKey(q);
      return q.has('quota') ? this.setQuota(q) : this.createUser(q);
    }
    if (route === 'POST user') return this.modifyUser(q);
    if (route === 'DELETE user') return q.has('key') ? this.removeKey(q) : this.removeUser(q);
    if (route === 'GET bucket') return this.bucketInfo(q);
    if (route === 'DELETE bucket') return this.removeBucket(q);
    return adminError(405, 'MethodNotAllowed');
  }

  /** S3 `PUT /<bucket>` by the owner of the request's key. */
  createBucket(caller: Caller, name: string): RgwReply {
    const user = caller.uid ? this.users.get(caller.uid) : undefined;
    if (caller.uid && !user) return s3Error(403, 'InvalidAccessKeyId');
    if (user?.suspended) return s3Error(403, 'UserSuspended');
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(name)) return s3Error(400, 'InvalidBucketName');
    const tenant = user?.tenant ?? '';
    const key = tenant ? `${tenant}/${name}` : name;
    if (this.buckets.has(key)) return s3Error(409, 'BucketAlreadyExists');
    this.buckets.set(key, {
      tenant,
      name,
      owner: caller.uid ?? 'admin',
      id: randomUUID(),
      createdAt: this.now(),
      size: 0,
      objects: 0,
    });
    return { status: 200, headers: { location: `/${name}` } };
  }

  private user(q: Params): FakeRgwUser | RgwReply {
    const uid = q.get('uid');
    if (!uid) return adminError(400, 'InvalidArgument', 'uid required');
    return this.users.get(uid) ?? adminError(404, 'NoSuchUser');
  }

  private bool(q: Params, name: string, fallback: boolean): boolean | RgwReply {
    const value = q.get(name);
    if (value === undefined) return fallback;
    return BOOLEANS[value] ?? adminError(400, 'InvalidArgument', `bad ${name}`);
  }

  private info(user: FakeRgwUser, withStats = false) {
    const owned = [...this.buckets.values()].filter((b) => b.owner === user.uid);
    return {
      tenant: user.tenant,
      user_id: user.uid,
      display_name: user.displayName,
      email: '',
      suspended: user.suspended ? 1 : 0,
      max_buckets: 1000,
      subusers: [],
      keys: this.keysOf(user),
      swift_keys: [],
      caps: [],
      op_mask: 'read, write, delete',
      bucket_quota: quotaDump({ enabled: false, max_size: -1n, max_objects: -1 }),
      user_quota: quotaDump(user.quota),
      temp_url_keys: [],
      type: 'rgw',
      ...(withStats
        ? {
            stats: stats(
              owned.reduce((sum, b) => sum + b.size, 0),
              owned.reduce((sum, b) => sum + b.objects, 0),
            ),
          }
        : {}),
    };
  }

  private keysOf(user: FakeRgwUser) {
    return [...user.keys]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([access, secret]) => ({ user: user.uid, access_key: access, secret_key: secret }));
  }

  private userInfo(q: Params): RgwReply {
    const user = this.user(q);
    if ('status' in user) return user;
    const withStats = this.bool(q, 'stats', false);
    if (typeof withStats !== 'boolean') return withStats;
    return ok(this.info(user, withStats));
  }

  private quotaInfo(q: Params): RgwReply {
    const user = this.user(q);
    if ('status' in user) return user;
    if (q.get('quota-type') !== 'user') return adminError(400, 'InvalidArgument', 'quota-type');
    return ok(quotaDump(user.quota));
  }

  private createUser(q: Params): RgwReply {
    const uid = q.get('uid') ?? '';
    const [tenant, name] = uid.includes('$') ? uid.split('$', 2) : ['', uid];
    if (!name) return adminError(400, 'InvalidArgument', 'uid required');
    if (!q.get('display-name')) return adminError(400, 'InvalidArgument', 'no display name');
    if (this.users.has(uid)) return adminError(409, 'UserAlreadyExists');
    const generate = this.bool(q, 'generate-key', true);
    if (typeof generate !== 'boolean') return generate;
    const user: FakeRgwUser = {
      uid,
      tenant,
      displayName: q.get('display-name')!,
      suspended: false,
      quota: { enabled: false, max_size: -1n, max_objects: -1 },
      keys: new Map(),
    };
    this.users.set(uid, user);
    if (generate) this.addKey(user, newAccessKey(), newSecret());
    return ok(this.info(user));
  }

  private setQuota(q: Params): RgwReply {
    const user = this.user(q);
    if ('status' in user) return user;
    if (q.get('quota-type') !== 'user') return adminError(400, 'InvalidArgument', 'quota-type');
    const enabled = this.bool(q, 'enabled', user.quota.enabled);
    if (typeof enabled !== 'boolean') return enabled;
    const next = { ...user.quota, enabled };
    for (const [param, scale] of [
      ['max-size', 1n],
      ['max-size-kb', 1024n],
    ] as const) {
      const value = q.get(param);
      if (value === undefined) continue;
      if (!/^-?\d+$/.test(value)) return adminError(400, 'InvalidArgument', `bad ${param}`);
      // strtoll, then a multiplication in signed 64-bit arithmetic, as RGW does.
      next.max_size = BigInt.asIntN(64, BigInt(value) * scale);
    }
    user.quota = next;
    return ok();
  }

  private modifyUser(q: Params): RgwReply {
    const user = this.user(q);
    if ('status' in user) return user;
    const suspended = this.bool(q, 'suspended', user.suspended);
    if (typeof suspended !== 'boolean') return suspended;
    user.suspended = suspended;
    return ok(this.info(user));
  }

  private removeUser(q: Params): RgwReply {
    const user = this.user(q);
    if ('status' in user) return user;
    const purge = this.bool(q, 'purge-data', false);
    if (typeof purge !== 'boolean') return purge;
    const owned = [...this.buckets].filter(([, b]) => b.owner === user.uid);
    if (owned.length > 0 && !purge) {
      return adminError(
        409,
        'BucketAlreadyExists',
        'must specify purge data to remove user with buckets',
      );
    }
    for (const [key] of owned) this.buckets.delete(key);
    for (const access of user.keys.keys()) this.keyOwners.delete(access);
    this.users.delete(user.uid);
    return ok();
  }

  private createKey(q: Params): RgwReply {
    const user = this.user(q);
    if ('status' in user) return user;
    if ((q.get('key-type') ?? 's3') !== 's3') return adminError(400, 'InvalidArgument', 'key-type');
    const generate = this.bool(q, 'generate-key', true);
    if (typeof generate !== 'boolean') return generate;
    const access = q.get('access-key') || newAccessKey();
    if (this.keyOwners.has(access)) return adminError(409, 'KeyExists');
    const secret = q.get('secret-key') || (generate ? newSecret() : undefined);
    if (!secret) return adminError(400, 'InvalidSecretKey');
    this.addKey(user, access, secret);
    return ok(this.keysOf(user));
  }

  private removeKey(q: Params): RgwReply {
    const user = this.user(q);
    if ('status' in user) return user;
    const access = q.get('access-key') ?? '';
    if (!user.keys.has(access)) return adminError(403, 'InvalidAccessKeyId');
    user.keys.delete(access);
    this.keyOwners.delete(access);
    return ok();
  }

  private addKey(user: FakeRgwUser, access: string, secret: string): void {
    user.keys.set(access, secret);
    this.keyOwners.set(access, user.uid);
  }

  private bucketDump(b: FakeRgwBucket) {
    return {
      bucket: b.name,
      num_shards: 11,
      tenant: b.tenant,
      zonegroup: 'default',
      placement_rule: 'default-placement',
      id: b.id,
      marker: b.id,
      index_type: 'Normal',
      versioned: false,
      owner: b.owner,
      ver: '0#1',
      master_ver: '0#0',
      mtime: b.createdAt.toISOString().replace(/Z$/, '000Z'),
      creation_time: b.createdAt.toISOString().replace(/Z$/, '000Z'),
      max_marker: '0#',
      usage: b.objects > 0 ? { 'rgw.main': stats(b.size, b.objects) } : {},
      bucket_quota: quotaDump({ enabled: false, max_size: -1n, max_objects: -1 }),
    };
  }

  private bucketInfo(q: Params): RgwReply {
    const uid = q.get('uid');
    const user = uid ? this.users.get(uid) : undefined;
    if (uid && !user) return adminError(404, 'NoSuchUser');
    const name = q.get('bucket');
    if (name) {
      const key = name.includes('/') || !user?.tenant ? name : `${user.tenant}/${name}`;
      const bucket = this.buckets.get(key);
      return bucket ? ok(this.bucketDump(bucket)) : adminError(404, 'NoSuchBucket');
    }
    const all = [...this.buckets.values()].filter((b) => !user || b.owner === user.uid);
    const withStats = this.bool(q, 'stats', false);
    if (typeof withStats !== 'boolean') return withStats;
    return ok(all.map((b) => (withStats ? this.bucketDump(b) : b.name)));
  }

  private removeBucket(q: Params): RgwReply {
    const key = q.get('bucket') ?? '';
    const bucket = this.buckets.get(key);
    if (!bucket) return adminError(404, 'NoSuchBucket');
    const purge = this.bool(q, 'purge-objects', false);
    if (typeof purge !== 'boolean') return purge;
    if (bucket.objects > 0 && !purge) return adminError(409, 'BucketNotEmpty');
    this.buckets.delete(key);
    return ok();
  }
}
