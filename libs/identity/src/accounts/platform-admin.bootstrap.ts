import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Clock } from '@platform/core';
import { DataSource } from 'typeorm';
import { hashPassword, verifyPassword } from '../auth/passwords.js';
import { AccountsRepository } from './accounts.repository.js';

/**
 * With PLATFORM_ADMIN_LOGIN and PLATFORM_ADMIN_PASSWORD set, ensures a verified platform-admin
 * account with that login and password. Idempotent: a changed password is applied on restart.
 */
@Injectable()
export class PlatformAdminBootstrap implements OnApplicationBootstrap {
  private readonly logger = new Logger('identity');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly accounts: AccountsRepository,
    private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const admin = this.config.platformAdmin;
    if (!admin) return;
    const now = this.clock.now();
    const existing = await this.accounts.findByLogin(admin.login);
    if (!existing) {
      await this.accounts.create(
        this.dataSource.manager,
        {
          login: admin.login,
          name: 'Platform admin',
          passwordHash: await hashPassword(admin.password),
          emailVerifiedAt: now,
          isPlatformAdmin: true,
        },
        now,
      );
      this.logger.log(`created platform admin ${admin.login}`);
      return;
    }
    const passwordCurrent = await verifyPassword(existing.passwordHash, admin.password);
    if (existing.isPlatformAdmin && existing.emailVerifiedAt && passwordCurrent) return;
    await this.accounts.update(
      existing.id,
      {
        isPlatformAdmin: true,
        emailVerifiedAt: existing.emailVerifiedAt ?? now,
        ...(passwordCurrent ? {} : { passwordHash: await hashPassword(admin.password) }),
      },
      now,
    );
    this.logger.log(`ensured platform admin ${admin.login}`);
  }
}
