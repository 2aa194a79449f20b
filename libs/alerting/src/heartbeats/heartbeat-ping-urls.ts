import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@platform/core';
import { capabilityKey, capabilityKeyId, isCapabilityKey, randomSecret } from '@platform/identity';

const PURPOSE = 'heartbeat_ping';

/**
 * Ping URLs: `{PUBLIC_URL}/heartbeat_pings/{id}.{HMAC-SHA256(SECRET_KEY, …id:nonce)}`. The row
 * keeps only the nonce; a rotation replaces it, so the previous URL answers 404.
 */
@Injectable()
export class HeartbeatPingUrls {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  newNonce(): string {
    return randomSecret('', 16);
  }

  url(heartbeat: { id: string; ping_nonce: string }): string {
    const key = capabilityKey(this.config.secretKey, PURPOSE, heartbeat.id, heartbeat.ping_nonce);
    return `${this.config.publicUrl.replace(/\/+$/, '')}/heartbeat_pings/${key}`;
  }

  /** The heartbeat id a ping key names, if it is shaped like one. */
  idOf(key: string): string | null {
    return capabilityKeyId(key);
  }

  matches(heartbeat: { id: string; ping_nonce: string }, key: string): boolean {
    return isCapabilityKey(this.config.secretKey, PURPOSE, heartbeat.id, heartbeat.ping_nonce, key);
  }
}
