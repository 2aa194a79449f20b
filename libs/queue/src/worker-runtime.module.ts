import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { JobDispatcher } from './job-dispatcher.js';

/** Imported by the worker app only: runs the processors of every job in the catalog. */
@Module({ imports: [DiscoveryModule], providers: [JobDispatcher] })
export class WorkerRuntimeModule {}
