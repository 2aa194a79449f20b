import { createHmac } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CloudAudit } from '@platform/cloud-core';
import { APP_CONFIG, type AppConfig, Clock } from '@platform/core';
import type { Principal } from '@platform/identity';
import type { DesignateZone } from './designate.js';
import { DnsErrorCode, DnsException } from './dns-errors.js';
import { TxtLookup } from './txt-lookup.js';
import {
  type ZoneVerificationRow,
  ZoneVerificationsRepository,
} from './zone-verifications.repository.js';

/** The label below the zone's name where the TXT record is looked up. */
export const VERIFICATION_LABEL = '_platform-verification';

/** A zone as the platform shows it: Designate's object with its verification. */
export type ZoneView = DesignateZone & {
  verification_token: string;
  verification_record: string;
  verified: boolean;
  verified_at: string | null;
};

/** The most TXT values a failure lists: enough to spot a typo, bounded for a busy name. */
const MAX_FOUND_SHOWN = 10;

/**
 * Domain verification (4-cloud-resources.md, POST /dns/domains/{id}/verify): a zone is
 * verified once a TXT record `_platform-verification.<zone name>` with its token resolves.
 *
 * The token is an HMAC of the zone id under SECRET_KEY: stable per zone, unguessable, and
 * nothing is stored (nor anything added upstream) for the many zones never verified. Rotating
 * SECRET_KEY changes the tokens of zones not yet verified; verified ones keep their row. The
 * verification itself is stored (dns_zone_verification), since it is a past fact: the record
 * may be removed once the proof is made.
 */
@Injectable()
export class ZoneVerifications {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: ZoneVerificationsRepository,
    private readonly txt: TxtLookup,
    private readonly clock: Clock,
    private readonly audit: CloudAudit,
  ) {}

  tokenOf(zoneId: string): string {
    return createHmac('sha256', this.config.secretKey)
      .update(`dns-zone-verification:${zoneId}`)
      .digest('base64url');
  }

  /** The zones with their verification token, record name and state. */
  async view(principal: Principal, zones: DesignateZone[]): Promise<ZoneView[]> {
    const stored = await this.repository.find(
      projectOf(principal),
      zones.map((zone) => zone.id),
    );
    return zones.map((zone) => this.viewOf(zone, stored.get(zone.id)));
  }

  /**
   * Verifies the zone (already read from Designate, so it is the project's) and answers it. A
   * zone verified before is answered as it is, without a lookup: its proof stands even if the
   * record was removed since.
   */
  async verify(principal: Principal, zone: DesignateZone): Promise<ZoneView> {
    const projectId = projectOf(principal);
    const known = (await this.repository.find(projectId, [zone.id])).get(zone.id);
    if (known) return this.viewOf(zone, known);
    const token = this.tokenOf(zone.id);
    const record = recordNameOf(zone.name);
    const answer = await this.txt.lookup(record);
    if (!answer.values.includes(token)) {
      const found =
        answer.outcome === 'found'
          ? `found only ${answer.values
              .slice(0, MAX_FOUND_SHOWN)
              .map((value) => JSON.stringify(value))
              .join(', ')}`
          : answer.outcome === 'no_such_name'
            ? 'the name does not exist'
            : 'the name has no TXT record';
      throw new DnsException(
        DnsErrorCode.VerificationFailed,
        `Expected a TXT record ${record} with the value "${token}"; ${found}`,
        {
          details: {
            record_name: record,
            expected: token,
            outcome: answer.outcome,
            found: answer.values.slice(0, MAX_FOUND_SHOWN),
          },
        },
      );
    }
    const { row, created } = await this.repository.insert({
      zone_id: zone.id,
      project_id: projectId,
      zone_name: zone.name,
      verified_at: this.clock.now(),
    });
    if (created) {
      await this.audit.record(
        principal,
        'dns_domains.verify',
        { type: 'dns_zone', id: zone.id },
        { name: zone.name },
      );
    }
    return this.viewOf(zone, row);
  }

  /** Forgets a deleted zone's verification. */
  async forget(principal: Principal, zoneId: string): Promise<void> {
    await this.repository.delete(projectOf(principal), zoneId);
  }

  private viewOf(zone: DesignateZone, row: ZoneVerificationRow | undefined): ZoneView {
    return {
      ...zone,
      verification_token: this.tokenOf(zone.id),
      verification_record: recordNameOf(zone.name),
      verified: row !== undefined,
      verified_at: row ? new Date(row.verified_at).toISOString() : null,
    };
  }
}

/** `_platform-verification.example.com.` for the zone `example.com.`. */
export const recordNameOf = (zoneName: string) =>
  `${VERIFICATION_LABEL}.${zoneName.endsWith('.') ? zoneName : `${zoneName}.`}`;

function projectOf(principal: Principal): string {
  if (!principal.projectId) throw new Error('a DNS route names its project');
  return principal.projectId;
}
