import { Global, Module } from '@nestjs/common';
import { AuditLog } from './audit-log.js';
import { AuditLogRepository } from './audit-log.repository.js';

/** The audit log, available to every module of the application that imports it once. */
@Global()
@Module({
  providers: [AuditLog, AuditLogRepository],
  exports: [AuditLog],
})
export class AuditModule {}
