import { Module } from '@nestjs/common';

/** Delivery of escalation pages. */
@Module({})
export class PagingModule {}
