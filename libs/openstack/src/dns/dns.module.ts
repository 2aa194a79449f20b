import { Module } from '@nestjs/common';
import { OpenStackCoreModule } from '../openstack-core.module.js';
import { RecordsController } from './records.controller.js';
import { RecordsService } from './records.service.js';
import { TxtLookup } from './txt-lookup.js';
import { ZoneVerifications } from './zone-verification.service.js';
import { ZoneVerificationsRepository } from './zone-verifications.repository.js';
import { ZonesController } from './zones.controller.js';
import { ZonesService } from './zones.service.js';

/** DNS zones and records (Designate) and domain verification (a TXT lookup). */
@Module({
  imports: [OpenStackCoreModule],
  controllers: [ZonesController, RecordsController],
  providers: [
    ZonesService,
    RecordsService,
    ZoneVerifications,
    ZoneVerificationsRepository,
    TxtLookup,
  ],
})
export class DnsModule {}
