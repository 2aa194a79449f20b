import { Module } from '@nestjs/common';

/** Acknowledgement by signed e-mail link, phone call and SMS reply. */
@Module({})
export class AckChannelsModule {}
