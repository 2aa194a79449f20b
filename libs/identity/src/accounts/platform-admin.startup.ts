import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Clock, retryUntilDone } from '@platform/core';
import { DataSource } from 'typeorm';
import { PasswordHasher } from '../auth/passwords.js';
import { ensurePlatformAdmin } from './platform-admin.js';

/**
 * The API's side of PLATFORM_ADMIN_LOGIN and PLATFORM_ADMIN_PASSWORD: `migrate` ensures the
 * account before the processes start, and each API replica ensures it again once started, so a
 * password changed in a running deployment applies on the next rollout even without a
 * migration job. In the background: start-up never waits for it, and an unreachable database
 * neither stops nor crashes the process; attempts go on (1 s, doubling to 30 s) until one
 * succeeds, and the failure is logged once.
 */
@Injectable()
export class PlatformAdminStartup implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('identity');
  private readonly stopping = new AbortController();
  /** Resolves true once the account is ensured, false when the app stopped first. */
  ensured: Promise<boolean> = Promise.resolve(true);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly passwords: PasswordHasher,
  ) {}

  onApplicationBootstrap(): void {
    const admin = this.config.platformAdmin;
    if (!admin) return;
    this.ensured = retryUntilDone(
      async () => {
        const outcome = await ensurePlatformAdmin(
          this.dataSource,
          admin,
          this.passwords,
          this.clock.now(),
        );
        if (outcome !== 'unchanged') this.logger.log(`platform admin ${admin.login} ${outcome}`);
      },
      {
        signal: this.stopping.signal,
        onFirstFailure: (error) =>
          this.logger.warn(
            `platform admin ${admin.login} not ensured yet, retrying in the background: ` +
              (error instanceof Error ? error.message : String(error)),
          ),
        onRecovered: (failures) =>
          this.logger.log(`platform admin ${admin.login} ensured after ${failures} failure(s)`),
      },
    );
  }

  onApplicationShutdown(): void {
    this.stopping.abort();
  }
}
