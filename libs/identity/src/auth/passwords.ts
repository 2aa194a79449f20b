import type { Provider } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, type PasswordHashingCost } from '@platform/core';
import argon2 from 'argon2';

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

/**
 * Hashes passwords with argon2id at the configured cost (AppConfig.passwordHashing) and checks
 * them against hashes of any cost (a hash names its own parameters, so raising the cost leaves
 * existing hashes valid).
 */
export class PasswordHasher {
  private decoy?: Promise<string>;

  constructor(private readonly cost: PasswordHashingCost) {}

  hash(password: string): Promise<string> {
    return argon2.hash(password, {
      type: argon2.argon2id,
      memoryCost: this.cost.memoryCostKiB,
      timeCost: this.cost.timeCost,
      parallelism: this.cost.parallelism,
    });
  }

  async verify(hash: string | null, password: string): Promise<boolean> {
    if (!hash) return false;
    try {
      return await argon2.verify(hash, password);
    } catch {
      return false;
    }
  }

  /** Verifying against a fixed hash keeps an unknown login as slow as a wrong password. */
  async burn(password: string): Promise<void> {
    this.decoy ??= this.hash('decoy-password-for-unknown-logins');
    await this.verify(await this.decoy, password);
  }
}

export const passwordHasherProvider: Provider = {
  provide: PasswordHasher,
  inject: [APP_CONFIG],
  useFactory: (config: AppConfig) => new PasswordHasher(config.passwordHashing),
};
