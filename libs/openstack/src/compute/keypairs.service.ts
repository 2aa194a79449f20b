import { Injectable } from '@nestjs/common';
import { CloudAudit } from '@platform/cloud-core';
import type { Principal } from '@platform/identity';
import { TenantClouds } from '../tenancy/tenant-cloud.js';
import type { CreateKeypairBody } from './keypairs.dto.js';

/** A keypair as Nova answers it: named, not numbered (the name is its id). */
export type NovaKeypair = Record<string, unknown> & { name: string };

/**
 * The project's SSH keypairs, as Nova answers them. Caution: Nova keys keypairs by the token's
 * user, not its project, so with one service user for every tenant Nova itself does not keep
 * tenants' keypairs apart (a name is unique per user, a list shows all of the user's); rule 3
 * holds for keypairs only once each tenant reaches Nova as a user of its own.
 */
@Injectable()
export class KeypairsService {
  constructor(
    private readonly clouds: TenantClouds,
    private readonly audit: CloudAudit,
  ) {}

  /** Nova wraps each item of the list as `{keypair: {...}}`; the answer is the items. */
  async list(principal: Principal): Promise<NovaKeypair[]> {
    const cloud = await this.clouds.ofProject(principal);
    const answer = await cloud.call<{ keypairs: Array<{ keypair: NovaKeypair }> }>('compute', {
      method: 'GET',
      path: '/os-keypairs',
    });
    // A private key is shown once, by the create that generated it; never by a list.
    return answer.keypairs.map(({ keypair: { private_key: _secret, ...keypair } }) => keypair);
  }

  /**
   * Imports the public key, or lets Nova generate a keypair: then its answer carries the
   * `private_key`, which is passed on this once and kept nowhere (nor in the audit entry).
   */
  async create(principal: Principal, body: CreateKeypairBody): Promise<NovaKeypair> {
    const { project_id: _project, ...keypair } = body;
    const cloud = await this.clouds.ofProject(principal);
    const created = (
      await cloud.call<{ keypair: NovaKeypair }>('compute', {
        method: 'POST',
        path: '/os-keypairs',
        body: { keypair },
      })
    ).keypair;
    await this.audit.record(
      principal,
      'ssh_keypairs.create',
      { type: 'ssh_keypair', id: created.name },
      { fingerprint: created.fingerprint, generated: body.public_key === undefined },
    );
    return created;
  }

  async delete(principal: Principal, name: string): Promise<void> {
    const cloud = await this.clouds.ofProject(principal);
    await cloud.call('compute', {
      method: 'DELETE',
      path: `/os-keypairs/${encodeURIComponent(name)}`,
    });
    await this.audit.record(principal, 'ssh_keypairs.delete', { type: 'ssh_keypair', id: name });
  }
}
