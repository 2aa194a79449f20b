import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { sha256 } from '../auth/secrets.js';

/** How long an address or user agent stays known to an account after its last login. */
export const LOGIN_ORIGIN_MEMORY_DAYS = 90;

/** What a login's origin was to the account before this login. */
export interface LoginOriginSeen {
  /** The account had logged in before (from anywhere, at any time still on record). */
  loggedInBefore: boolean;
  /** The address was seen within the last 90 days. */
  addressKnown: boolean;
  /** The user agent was seen within the last 90 days. */
  userAgentKnown: boolean;
}

@Injectable()
export class LoginOriginsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Records a login's origin and answers what the account knew of it before, in one statement:
   * the account's rows past 90 days are pruned, this origin's last_seen_at set. A missing
   * address or user agent is recorded as the empty string (a value like any other).
   */
  async record(
    accountId: string,
    address: string | null,
    userAgent: string | null,
    now: Date,
  ): Promise<LoginOriginSeen> {
    const cutoff = new Date(now.getTime() - LOGIN_ORIGIN_MEMORY_DAYS * 86_400_000);
    const [row]: Array<{
      logged_in_before: boolean;
      address_known: boolean;
      agent_known: boolean;
    }> = await this.dataSource.query(
      `WITH seen AS (
           SELECT count(*) > 0 AS logged_in_before,
                  COALESCE(bool_or(address = $2 AND last_seen_at > $5), false) AS address_known,
                  COALESCE(bool_or(user_agent_hash = $3 AND last_seen_at > $5), false) AS agent_known
             FROM account_login_origin WHERE account_id = $1
         ), pruned AS (
           DELETE FROM account_login_origin
            WHERE account_id = $1 AND last_seen_at <= $5
              AND (address, user_agent_hash) <> ($2, $3)
         ), recorded AS (
           INSERT INTO account_login_origin (account_id, address, user_agent_hash, last_seen_at)
           VALUES ($1, $2, $3, $4)
           ON CONFLICT (account_id, address, user_agent_hash)
           DO UPDATE SET last_seen_at = GREATEST(account_login_origin.last_seen_at, EXCLUDED.last_seen_at)
         )
         SELECT * FROM seen`,
      [accountId, address ?? '', sha256(userAgent ?? ''), now, cutoff],
    );
    return {
      loggedInBefore: row.logged_in_before,
      addressKnown: row.address_known,
      userAgentKnown: row.agent_known,
    };
  }
}
