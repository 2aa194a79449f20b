import { Injectable } from '@nestjs/common';
import { CloudAudit } from '@platform/cloud-core';
import type { Principal } from '@platform/identity';
import { TenantClouds } from '../tenancy/tenant-cloud.js';
import { type DesignateZone, getZone, listAll, zonePath } from './designate.js';
import type { CreateZoneBody } from './dns.dto.js';
import { normaliseZoneName } from './dns-names.js';
import { ZoneVerifications, type ZoneView } from './zone-verification.service.js';

/** The project's DNS zones in Designate, each shown with its domain verification. */
@Injectable()
export class ZonesService {
  constructor(
    private readonly clouds: TenantClouds,
    private readonly verifications: ZoneVerifications,
    private readonly audit: CloudAudit,
  ) {}

  async list(principal: Principal): Promise<ZoneView[]> {
    const cloud = await this.clouds.ofProject(principal);
    const zones = await listAll<DesignateZone>(cloud, '/v2/zones', 'zones');
    return this.verifications.view(principal, zones);
  }

  async show(principal: Principal, id: string): Promise<ZoneView> {
    const cloud = await this.clouds.ofProject(principal);
    const [zone] = await this.verifications.view(principal, [await getZone(cloud, id)]);
    return zone;
  }

  /** Designate answers 202 with the zone PENDING until its name servers serve it. */
  async create(principal: Principal, body: CreateZoneBody): Promise<ZoneView> {
    const cloud = await this.clouds.ofProject(principal);
    const zone = await cloud.call<DesignateZone>('dns', {
      method: 'POST',
      path: '/v2/zones',
      body: {
        name: normaliseZoneName(body.name),
        email: body.email,
        type: 'PRIMARY',
        ...(body.ttl === undefined ? {} : { ttl: body.ttl }),
        ...(body.description === undefined ? {} : { description: body.description }),
      },
    });
    await this.audit.record(
      principal,
      'dns_zones.create',
      { type: 'dns_zone', id: zone.id },
      { name: zone.name },
    );
    const [view] = await this.verifications.view(principal, [zone]);
    return view;
  }

  /** Designate answers 202 with the zone (`action: DELETE`) while its servers drop it. */
  async delete(principal: Principal, id: string): Promise<ZoneView> {
    const cloud = await this.clouds.ofProject(principal);
    const answered = await cloud.call<DesignateZone | undefined>('dns', {
      method: 'DELETE',
      path: zonePath(id),
    });
    // Designate answers the zone; should a version answer nothing, it is read as it stands.
    const zone = answered ?? (await getZone(cloud, id));
    await this.audit.record(
      principal,
      'dns_zones.delete',
      { type: 'dns_zone', id },
      { name: zone.name },
    );
    const [view] = await this.verifications.view(principal, [zone]);
    await this.verifications.forget(principal, id);
    return view;
  }

  async verify(principal: Principal, id: string): Promise<ZoneView> {
    const cloud = await this.clouds.ofProject(principal);
    return this.verifications.verify(principal, await getZone(cloud, id));
  }
}
