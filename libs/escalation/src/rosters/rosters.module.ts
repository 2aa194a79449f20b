import { Module } from '@nestjs/common';
import { OnCallResolver } from './on-call-resolver.js';

/** On-call rosters; exports who is on call. */
@Module({ providers: [OnCallResolver], exports: [OnCallResolver] })
export class RostersModule {}
