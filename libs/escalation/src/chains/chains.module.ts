import { Module } from '@nestjs/common';

/** Escalation chains and steps. */
@Module({})
export class ChainsModule {}
