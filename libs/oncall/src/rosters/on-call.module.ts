import { Module } from '@nestjs/common';
import { TargetResolver } from '../targets/recipient-targets.js';
import { OnCallResolver } from './on-call-resolver.js';

/**
 * Who is on call and whom a target reaches, without the rosters API: what alert dispatch and
 * escalation steps need.
 */
@Module({ providers: [OnCallResolver, TargetResolver], exports: [OnCallResolver, TargetResolver] })
export class OnCallModule {}
