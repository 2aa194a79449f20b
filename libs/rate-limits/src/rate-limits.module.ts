import { Module } from '@nestjs/common';
import { RateLimiter } from './rate-limiter.js';

/** The RateLimiter, for modules that limit something (it uses the global REDIS connection). */
@Module({ providers: [RateLimiter], exports: [RateLimiter] })
export class RateLimitsModule {}
