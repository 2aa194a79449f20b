import { Injectable } from '@nestjs/common';
import { CloudAudit, CloudErrorCode, CloudException } from '@platform/cloud-core';
import type { Principal } from '@platform/identity';
import { TenantClouds } from '../tenancy/tenant-cloud.js';
import { novaKeypairName, tenantKeypairName } from './keypair-names.js';
import type { CreateKeypairBody } from './keypairs.dto.js';

/** A keypair as Nova answers it: named, not numbered (the name is its id). */
export type NovaKeypair = Record<string, unknown> & { name: string };

/**
 * The project's SSH keypairs, as Nova answers them. Nova keeps keypairs per user, not per
 * project, and every tenant reaches it as the one service user, so each tenant's keypairs live
 * under a name prefixed with its Keystone project id (keypair-names.ts): the tenant sees,
 * names and deletes only its own.
 */
/** Nova's conflict names the prefixed name: say it in the name the tenant knows. */
function taken(error: unknown, name: string): unknown {
  if (!(error instanceof CloudException) || error.code !== CloudErrorCode.Conflict) return error;
  const message = `A keypair named '${name}' already exists in this project`;
  return new CloudException(CloudErrorCode.Conflict, message, {
    details: { ...(error.details as object), message },
  });
}

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
    return answer.keypairs.flatMap(({ keypair: { private_key: _secret, ...keypair } }) => {
      const name = tenantKeypairName(cloud, keypair.name);
      return name === null ? [] : [{ ...keypair, name }];
    });
  }

  /**
   * Imports the public key, or lets Nova generate a keypair: then its answer carries the
   * `private_key`, which is passed on this once and kept nowhere (nor in the audit entry).
   */
  async create(principal: Principal, body: CreateKeypairBody): Promise<NovaKeypair> {
    const { project_id: _project, ...keypair } = body;
    const cloud = await this.clouds.ofProject(principal);
    const created = (
      await cloud
        .call<{ keypair: NovaKeypair }>('compute', {
          method: 'POST',
          path: '/os-keypairs',
          body: { keypair: { ...keypair, name: novaKeypairName(cloud, keypair.name) } },
        })
        .catch((error: unknown) => {
          throw taken(error, keypair.name);
        })
    ).keypair;
    created.name = keypair.name;
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
      path: `/os-keypairs/${encodeURIComponent(novaKeypairName(cloud, name))}`,
    });
    await this.audit.record(principal, 'ssh_keypairs.delete', { type: 'ssh_keypair', id: name });
  }
}
