import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { Dependencies, unavailableDependency } from '@platform/core';
import { CableAuthenticator } from './cable-authenticator.js';
import { NotificationsCableGateway } from './notifications-cable.gateway.js';

/** How often open sockets' credentials are checked again: a revoked token's sockets close within it. */
export const CREDENTIAL_CHECK_INTERVAL_MS = 1000;

/**
 * Closes the sockets whose credential stopped authenticating: a static token revoked, or whose
 * owner left its organization; a login session ended by a logout or a password change. Each API replica checks its own sockets against the database,
 * one statement per round for all of them, so whatever ended the credential, and on whichever
 * replica, its sockets close everywhere within about a second.
 */
@Injectable()
export class CableCredentialWatch implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('NotificationsCable');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly gateway: NotificationsCableGateway,
    private readonly authenticator: CableAuthenticator,
    private readonly dependencies: Dependencies,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.tick(), CREDENTIAL_CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Checks every credential local sockets are open on; closes those that ended. */
  async check(): Promise<void> {
    const held = this.gateway.credentialIds();
    if (held.length === 0) return;
    const valid = await this.authenticator.stillValid(held);
    this.gateway.closeCredentials(held.filter((id) => !valid.has(id)));
  }

  private tick(): void {
    // While the database is unreachable nothing can be checked: sockets stay as they are.
    if (this.running || !this.dependencies.isUp('database')) return;
    this.running = this.check()
      .catch((error: Error) => {
        const dependency = unavailableDependency(error);
        if (dependency) this.dependencies.reportFailure(dependency, error);
        else this.logger.warn(`checking socket credentials failed: ${error.message}`);
      })
      .finally(() => {
        this.running = null;
      });
  }
}
