import { Module } from '@nestjs/common';
import { passwordHasherProvider } from '../auth/passwords.js';
import { PlatformAdminStartup } from './platform-admin.startup.js';

/**
 * Ensures the platform admin at start-up: imported by the API only. The worker reaches
 * IdentityModule too (through the notifications it sends), which is why this is not part of it.
 */
@Module({ providers: [passwordHasherProvider, PlatformAdminStartup] })
export class PlatformAdminModule {}
