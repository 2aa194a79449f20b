import { Module } from '@nestjs/common';
import { CapabilitiesModule } from '@platform/capabilities';
import {
  CalendarFeedsController,
  RosterCalendarFeedController,
} from '../calendar/calendar-feeds.controller.js';
import { CalendarFeedsRepository } from '../calendar/calendar-feeds.repository.js';
import { CalendarFeedsService } from '../calendar/calendar-feeds.service.js';
import { OnCallModule } from './on-call.module.js';
import { RosterContactsController } from './roster-contacts.controller.js';
import { RosterContactsRepository } from './roster-contacts.repository.js';
import { RosterContactsService } from './roster-contacts.service.js';
import { RosterMembersController } from './roster-members.controller.js';
import { RosterMembersRepository } from './roster-members.repository.js';
import { RosterMembersService } from './roster-members.service.js';
import {
  RosterOverridesController,
  RosterRotationController,
} from './roster-schedule.controller.js';
import { RosterScheduleRepository } from './roster-schedule.repository.js';
import { RosterScheduleService } from './roster-schedule.service.js';
import { RostersController } from './rosters.controller.js';
import { RostersRepository } from './rosters.repository.js';
import { RostersService } from './rosters.service.js';

/**
 * On-call rosters: the API for rosters, their members, phone contacts, rotation, overrides and
 * computed shifts, and their calendar feeds; exports who is on call and whom a target reaches (`OnCallModule`).
 */
@Module({
  imports: [CapabilitiesModule, OnCallModule],
  controllers: [
    RostersController,
    RosterMembersController,
    RosterContactsController,
    RosterRotationController,
    RosterOverridesController,
    RosterCalendarFeedController,
    CalendarFeedsController,
  ],
  providers: [
    RostersRepository,
    RostersService,
    RosterMembersRepository,
    RosterMembersService,
    RosterContactsRepository,
    RosterContactsService,
    RosterScheduleRepository,
    RosterScheduleService,
    CalendarFeedsRepository,
    CalendarFeedsService,
  ],
  exports: [OnCallModule],
})
export class RostersModule {}
