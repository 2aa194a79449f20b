import { Module } from '@nestjs/common';
import { OnCallResolver } from './on-call-resolver.js';

/** Who is on call, without the rosters API: what the worker and escalation steps need. */
@Module({ providers: [OnCallResolver], exports: [OnCallResolver] })
export class OnCallModule {}
