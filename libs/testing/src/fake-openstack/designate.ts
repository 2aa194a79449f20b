import { randomUUID } from 'node:crypto';
import {
  type FakeReply,
  type FakeRequest,
  FakeService,
  json,
  type ProjectResources,
} from './fake-service.js';

export interface DesignateOptions {
  /** How long a change leaves a zone or record set PENDING before it is ACTIVE (or gone). */
  activateMs: number;
  /** Items per page of a list without `limit` (Designate's default page is small). */
  pageSize: number;
}

type Stored = Record<string, unknown> & { id: string; _changedAt: number };

const ZONES = 'dns_zones';
const RECORDSETS = 'dns_recordsets';

/** Designate's error body: `{code, type, message, request_id}`. */
const designateError = (status: number, type: string, message: string): FakeReply =>
  json(status, { code: status, type, message, request_id: `req-${randomUUID()}` });

const notFound = (what: 'Zone' | 'RecordSet') =>
  designateError(
    404,
    `${what === 'Zone' ? 'zone' : 'recordset'}_not_found`,
    `Could not find ${what}`,
  );

/** Designate's timestamps: UTC with microseconds and no zone designator. */
const timestamp = () => new Date().toISOString().replace(/Z$/, '000');

/** `*` in a `name` filter matches anything, as Designate reads it. */
const nameFilter = (pattern: string) =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`, 'i');

/**
 * Designate's v2 API below the `dns` catalog entry: zones per project (names unique across all
 * projects, so a name taken elsewhere is a 409, while another project's zone id is a 404),
 * record sets with `name`/`type` filters, paged lists with `links.next`, and the asynchronous
 * life cycle: creates and changes answer 202 with the object PENDING, ACTIVE once
 * `activateMs` has passed; deletes answer 202 with `action: DELETE` and the object is gone
 * after that time. A new zone gets its SOA and NS record sets, as Designate's do.
 */
export function designateService(
  resources: ProjectResources,
  options: DesignateOptions,
): FakeService {
  const zones = (projectId: string) =>
    resources.collection(projectId, ZONES) as Map<string, Stored>;
  const recordsets = (projectId: string) =>
    resources.collection(projectId, RECORDSETS) as Map<string, Stored>;

  /** Applies the time passed: PENDING changes settle, deletions complete. */
  const settle = (collection: Map<string, Stored>, object: Stored): Stored | undefined => {
    if (object.status === 'PENDING' && Date.now() - object._changedAt >= options.activateMs) {
      if (object.action === 'DELETE') {
        collection.delete(object.id);
        return undefined;
      }
      object.status = 'ACTIVE';
      object.action = 'NONE';
    }
    return object;
  };
  const visible = ({ _changedAt, ...object }: Stored) => object;
  const change = (object: Stored, action: string) => {
    object.status = 'PENDING';
    object.action = action;
    object._changedAt = Date.now();
    object.version = Number(object.version) + 1;
    object.updated_at = timestamp();
  };
  const liveZone = (projectId: string, id: string) => {
    const zone = zones(projectId).get(id);
    return zone && settle(zones(projectId), zone);
  };
  const touchZone = (zone: Stored) => {
    zone.serial = Number(zone.serial) + 1;
    if (zone.action !== 'DELETE') change(zone, 'UPDATE');
  };

  /** A page of `items` (sorted by id, as the marker needs) with Designate's `links`. */
  const page = (r: FakeRequest, key: string, items: Stored[]): FakeReply => {
    const sorted = [...items].sort((a, b) => a.id.localeCompare(b.id));
    const limit = Number(r.query.get('limit') ?? options.pageSize);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      return designateError(400, 'invalid_limit', 'limit should be an integer from 1 to 1000');
    }
    const marker = r.query.get('marker');
    const start = marker ? sorted.findIndex((item) => item.id === marker) + 1 : 0;
    if (marker && start === 0) return designateError(400, 'invalid_marker', 'invalid marker');
    const slice = sorted.slice(start, start + limit);
    const self = `http://designate.invalid/v2${r.path}`;
    const more = start + limit < sorted.length;
    const next = new URLSearchParams(r.query);
    next.set('limit', String(limit));
    next.set('marker', slice.at(-1)?.id ?? '');
    return json(200, {
      [key]: slice.map(visible),
      links: { self, ...(more ? { next: `${self}?${next.toString()}` } : {}) },
      metadata: { total_count: sorted.length },
    });
  };

  const addRecordset = (zone: Stored, fields: Record<string, unknown>): Stored => {
    const now = timestamp();
    const projectId = String(zone.project_id);
    const recordset: Stored = {
      id: randomUUID(),
      zone_id: zone.id,
      project_id: projectId,
      zone_name: zone.name,
      ttl: null,
      description: null,
      status: 'PENDING',
      action: 'CREATE',
      version: 1,
      created_at: now,
      updated_at: null,
      ...fields,
      _changedAt: Date.now(),
    };
    recordset.links = {
      self: `http://designate.invalid/v2/zones/${zone.id}/recordsets/${recordset.id}`,
    };
    recordsets(projectId).set(recordset.id, recordset);
    return recordset;
  };

  const zoneRecordsets = (projectId: string, zoneId: string) =>
    [...recordsets(projectId).values()]
      .filter((rs) => rs.zone_id === zoneId)
      .map((rs) => settle(recordsets(projectId), rs))
      .filter((rs): rs is Stored => rs !== undefined);

  return new FakeService('dns', '/dns')
    .on('GET', /^\/v2\/zones$/, (r) => {
      const name = r.query.get('name');
      const listed = [...zones(r.projectId).values()]
        .map((zone) => settle(zones(r.projectId), zone))
        .filter((zone): zone is Stored => zone !== undefined)
        .filter((zone) => !name || nameFilter(name).test(String(zone.name)));
      return page(r, 'zones', listed);
    })
    .on('POST', /^\/v2\/zones$/, (r) => {
      const body = (r.body ?? {}) as Record<string, unknown>;
      const name = typeof body.name === 'string' ? body.name : '';
      if (!name.endsWith('.') || typeof body.email !== 'string') {
        return designateError(400, 'invalid_object', 'Provided object does not match schema');
      }
      const taken = resources
        .everywhere(ZONES)
        .some((zone) => String(zone.name).toLowerCase() === name.toLowerCase());
      if (taken) return designateError(409, 'duplicate_zone', 'Duplicate Zone');
      const id = randomUUID();
      const zone: Stored = {
        id,
        pool_id: '794ccc2c-d751-44fe-b57f-8894c9f5c842',
        project_id: r.projectId,
        name,
        email: body.email,
        ttl: typeof body.ttl === 'number' ? body.ttl : 3600,
        serial: Math.floor(Date.now() / 1000),
        status: 'PENDING',
        action: 'CREATE',
        description: typeof body.description === 'string' ? body.description : null,
        masters: [],
        type: body.type ?? 'PRIMARY',
        transferred_at: null,
        version: 1,
        created_at: timestamp(),
        updated_at: null,
        attributes: {},
        links: { self: `http://designate.invalid/v2/zones/${id}` },
        _changedAt: Date.now(),
      };
      zones(r.projectId).set(id, zone);
      addRecordset(zone, {
        name,
        type: 'SOA',
        records: [
          `ns1.designate.invalid. ${String(body.email).replace('@', '.')}. ${String(zone.serial)} 3559 600 86400 3600`,
        ],
      });
      addRecordset(zone, { name, type: 'NS', records: ['ns1.designate.invalid.'] });
      return json(202, visible(zone));
    })
    .on('GET', /^\/v2\/zones\/([^/]+)$/, (r, [id]) => {
      const zone = liveZone(r.projectId, id);
      return zone ? json(200, visible(zone)) : notFound('Zone');
    })
    .on('DELETE', /^\/v2\/zones\/([^/]+)$/, (r, [id]) => {
      const zone = liveZone(r.projectId, id);
      if (!zone) return notFound('Zone');
      change(zone, 'DELETE');
      for (const rs of zoneRecordsets(r.projectId, id)) recordsets(r.projectId).delete(rs.id);
      return json(202, visible(zone));
    })
    .on('GET', /^\/v2\/zones\/([^/]+)\/recordsets$/, (r, [zoneId]) => {
      if (!liveZone(r.projectId, zoneId)) return notFound('Zone');
      const name = r.query.get('name');
      const type = r.query.get('type');
      const listed = zoneRecordsets(r.projectId, zoneId).filter(
        (rs) => (!name || nameFilter(name).test(String(rs.name))) && (!type || rs.type === type),
      );
      return page(r, 'recordsets', listed);
    })
    .on('POST', /^\/v2\/zones\/([^/]+)\/recordsets$/, (r, [zoneId]) => {
      const zone = liveZone(r.projectId, zoneId);
      if (!zone) return notFound('Zone');
      const body = (r.body ?? {}) as Record<string, unknown>;
      const name = typeof body.name === 'string' ? body.name.toLowerCase() : '';
      const records = body.records;
      if (
        typeof body.type !== 'string' ||
        !Array.isArray(records) ||
        records.length === 0 ||
        !records.every((record) => typeof record === 'string')
      ) {
        return designateError(400, 'invalid_object', 'Provided object does not match schema');
      }
      const zoneName = String(zone.name);
      if (!name.endsWith('.') || (name !== zoneName && !name.endsWith(`.${zoneName}`))) {
        return designateError(400, 'invalid_recordset_location', 'Invalid recordset location');
      }
      const duplicate = zoneRecordsets(r.projectId, zoneId).some(
        (rs) => rs.name === name && rs.type === body.type,
      );
      if (duplicate) return designateError(409, 'duplicate_recordset', 'Duplicate RecordSet');
      const recordset = addRecordset(zone, {
        name,
        type: body.type,
        records,
        ...(typeof body.ttl === 'number' ? { ttl: body.ttl } : {}),
        ...(typeof body.description === 'string' ? { description: body.description } : {}),
      });
      touchZone(zone);
      return json(202, visible(recordset));
    })
    .on('GET', /^\/v2\/zones\/([^/]+)\/recordsets\/([^/]+)$/, (r, [zoneId, id]) => {
      const found = zoneRecordsets(r.projectId, zoneId).find((rs) => rs.id === id);
      return found ? json(200, visible(found)) : notFound('RecordSet');
    })
    .on('PUT', /^\/v2\/zones\/([^/]+)\/recordsets\/([^/]+)$/, (r, [zoneId, id]) => {
      const zone = liveZone(r.projectId, zoneId);
      const found = zone && zoneRecordsets(r.projectId, zoneId).find((rs) => rs.id === id);
      if (!zone || !found) return notFound('RecordSet');
      const body = (r.body ?? {}) as Record<string, unknown>;
      if (body.records !== undefined) {
        if (!Array.isArray(body.records) || body.records.length === 0) {
          return designateError(400, 'invalid_object', 'Provided object does not match schema');
        }
        found.records = body.records;
      }
      if (body.ttl !== undefined) found.ttl = body.ttl;
      if (body.description !== undefined) found.description = body.description;
      change(found, 'UPDATE');
      touchZone(zone);
      return json(202, visible(found));
    })
    .on('DELETE', /^\/v2\/zones\/([^/]+)\/recordsets\/([^/]+)$/, (r, [zoneId, id]) => {
      const zone = liveZone(r.projectId, zoneId);
      const found = zone && zoneRecordsets(r.projectId, zoneId).find((rs) => rs.id === id);
      if (!zone || !found) return notFound('RecordSet');
      change(found, 'DELETE');
      touchZone(zone);
      return json(202, visible(found));
    });
}
