import { Injectable } from '@nestjs/common';
import { CloudAudit } from '@platform/cloud-core';
import type { Principal } from '@platform/identity';
import { type TenantCloud, TenantClouds } from '../tenancy/tenant-cloud.js';
import { type DesignateRecordset, getZone, listAll, recordsetsPath } from './designate.js';
import type { CreateRecordBody, RecordPath, UpdateRecordBody } from './dns.dto.js';
import { invalidField, recordsetNotFound } from './dns-errors.js';
import { absoluteRecordName, normaliseRecordData, recordsProblem } from './dns-names.js';

/**
 * The record sets of a project's zones in Designate. A record set is addressed by its owner
 * name and type, as people think of DNS, and found by Designate's `name` and `type` filters;
 * the match is made exact here, since Designate reads `*` in a `name` filter as a wildcard.
 */
@Injectable()
export class RecordsService {
  constructor(
    private readonly clouds: TenantClouds,
    private readonly audit: CloudAudit,
  ) {}

  async list(principal: Principal, zoneId: string): Promise<DesignateRecordset[]> {
    const cloud = await this.clouds.ofProject(principal);
    return listAll<DesignateRecordset>(cloud, recordsetsPath(zoneId), 'recordsets');
  }

  /** Designate answers 202 with the record set PENDING until the zone's servers have it. */
  async create(
    principal: Principal,
    zoneId: string,
    body: CreateRecordBody,
  ): Promise<DesignateRecordset> {
    const cloud = await this.clouds.ofProject(principal);
    const zone = await getZone(cloud, zoneId);
    const owner = absoluteRecordName(body.name, zone.name);
    if ('problem' in owner) throw invalidField('name', owner.problem);
    const recordset = await cloud.call<DesignateRecordset>('dns', {
      method: 'POST',
      path: recordsetsPath(zoneId),
      body: {
        name: owner.name,
        type: body.type,
        records: body.records.map((value) => normaliseRecordData(body.type, value)),
        ...(body.ttl === undefined ? {} : { ttl: body.ttl }),
        ...(body.description === undefined ? {} : { description: body.description }),
      },
    });
    await this.audit.record(
      principal,
      'dns_records.create',
      { type: 'dns_recordset', id: recordset.id },
      { zone_id: zoneId, name: owner.name, type: body.type },
    );
    return recordset;
  }

  async update(
    principal: Principal,
    path: RecordPath,
    body: UpdateRecordBody,
  ): Promise<DesignateRecordset> {
    // The records' type is the path's: checked here, before anything is asked upstream.
    if (body.records) {
      const problem = recordsProblem(path.type, body.records);
      if (problem) throw invalidField('records', problem);
    }
    if (body.records === undefined && body.ttl === undefined && body.description === undefined) {
      throw invalidField('records', 'give at least one of records, ttl and description');
    }
    const cloud = await this.clouds.ofProject(principal);
    const found = await this.find(cloud, path);
    const recordset = await cloud.call<DesignateRecordset>('dns', {
      method: 'PUT',
      path: `${recordsetsPath(path.zone_id)}/${encodeURIComponent(found.id)}`,
      body: {
        ...(body.records === undefined
          ? {}
          : { records: body.records.map((value) => normaliseRecordData(path.type, value)) }),
        ...(body.ttl === undefined ? {} : { ttl: body.ttl }),
        ...(body.description === undefined ? {} : { description: body.description }),
      },
    });
    await this.audit.record(
      principal,
      'dns_records.update',
      { type: 'dns_recordset', id: found.id },
      { zone_id: path.zone_id, name: found.name, type: path.type },
    );
    return recordset;
  }

  /** Designate answers 202 with the record set (`action: DELETE`). */
  async delete(principal: Principal, path: RecordPath): Promise<DesignateRecordset> {
    const cloud = await this.clouds.ofProject(principal);
    const found = await this.find(cloud, path);
    const recordset = await cloud.call<DesignateRecordset | undefined>('dns', {
      method: 'DELETE',
      path: `${recordsetsPath(path.zone_id)}/${encodeURIComponent(found.id)}`,
    });
    await this.audit.record(
      principal,
      'dns_records.delete',
      { type: 'dns_recordset', id: found.id },
      { zone_id: path.zone_id, name: found.name, type: path.type },
    );
    return recordset ?? found;
  }

  /** The record set of the path's name and type in the project's zone, or 404. */
  private async find(cloud: TenantCloud, path: RecordPath): Promise<DesignateRecordset> {
    const zone = await getZone(cloud, path.zone_id);
    const owner = absoluteRecordName(path.name, zone.name);
    // A name outside the zone names no record set of it.
    if ('problem' in owner) throw recordsetNotFound(path.name, path.type);
    const candidates = await listAll<DesignateRecordset>(
      cloud,
      recordsetsPath(path.zone_id),
      'recordsets',
      { name: owner.name, type: path.type },
    );
    const found = candidates.find(
      (rs) => rs.name.toLowerCase() === owner.name && rs.type === path.type,
    );
    if (!found) throw recordsetNotFound(owner.name, path.type);
    return found;
  }
}
