import { Module } from '@nestjs/common';
import { NotificationPush } from './notification-push.js';

/**
 * Publishing pushes to the Redis channel every API replica relays to its sockets: all a
 * process needs to notify in real time, without serving sockets itself (the worker).
 */
@Module({ providers: [NotificationPush], exports: [NotificationPush] })
export class NotificationPushModule {}
