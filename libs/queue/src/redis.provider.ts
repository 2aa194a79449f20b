import type { Provider } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@platform/core';
import { Redis } from 'ioredis';

/** A general-purpose Redis client whose keys all live under the configured prefix. */
export const REDIS = Symbol('REDIS');

export const redisProvider: Provider = {
  provide: REDIS,
  inject: [APP_CONFIG],
  useFactory: (config: AppConfig) =>
    new Redis(config.redisUrl, { keyPrefix: `${config.redisPrefix}:` }),
};
