import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiBody, ApiTags } from '@nestjs/swagger';
import { ApiData, ApiErrors, Clock } from '@platform/core';
import {
  ACCOUNT_SESSION_ERRORS,
  Authenticated,
  CSRF_ERROR,
  CurrentPrincipal,
  invalidDoc,
  type Principal,
} from '@platform/identity';
import {
  DEFAULT_SCHEDULE,
  type EmailMode,
  MANDATORY_INSTANT_CATEGORIES,
} from '../delivery/decide.js';
import { parseHHMM, resolveTimeZone } from '../delivery/time-zone.js';
import { invalid, NotificationsErrorCode } from '../notifications-exception.js';
import { ScheduleResponseDto } from '../notifications.openapi.js';
import { ScheduleRepository } from './schedule.repository.js';

const EMAIL_MODES: EmailMode[] = ['instant', 'hourly_digest', 'daily_digest'];

interface ScheduleFields {
  email_mode: EmailMode;
  quiet_start: string | null;
  quiet_end: string | null;
  timezone: string;
  digest_hour: number;
}

/**
 * The account's e-mail schedule, one for all of its organizations: only login sessions read or
 * change it, as a static token acts only inside its own organization.
 */
@ApiTags('notifications')
@Controller('notification_schedule')
@Authenticated({ scope: 'account', interactiveOnly: true })
export class ScheduleController {
  constructor(
    private readonly clock: Clock,
    private readonly schedules: ScheduleRepository,
  ) {}

  /** The stored schedule, or the unpersisted default; never 404. */
  @Get()
  @ApiData(ScheduleResponseDto, { description: 'the schedule' })
  @ApiErrors(...ACCOUNT_SESSION_ERRORS)
  async show(@CurrentPrincipal() principal: Principal) {
    return this.view(await this.current(principal.account.id));
  }

  /** Changes any of the fields; `mandatory_instant_categories` is read-only and ignored. */
  @Patch()
  @ApiData(ScheduleResponseDto, { description: 'the changed schedule' })
  @ApiErrors(
    ...ACCOUNT_SESSION_ERRORS,
    CSRF_ERROR,
    invalidDoc('email_mode, quiet_start or quiet_end (HH:MM), timezone or digest_hour (0..23)'),
  )
  @ApiBody({
    schema: {
      type: 'object',
      properties: {
        email_mode: { type: 'string', enum: EMAIL_MODES },
        quiet_start: { type: 'string', nullable: true, example: '22:00' },
        quiet_end: { type: 'string', nullable: true, example: '07:00' },
        timezone: {
          type: 'string',
          example: 'Europe/Berlin',
          description: 'IANA or Rails zone name',
        },
        digest_hour: { type: 'integer', minimum: 0, maximum: 23 },
      },
    },
  })
  async update(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    const changes = this.validate(body);
    const next = { ...(await this.current(principal.account.id)), ...changes };
    await this.schedules.save({
      accountId: principal.account.id,
      emailMode: next.email_mode,
      quietStart: next.quiet_start,
      quietEnd: next.quiet_end,
      timezone: next.timezone,
      digestHour: next.digest_hour,
      updatedAt: this.clock.now(),
    });
    return this.view(next);
  }

  private async current(accountId: string): Promise<ScheduleFields> {
    const stored = await this.schedules.find(accountId);
    if (!stored) {
      return {
        email_mode: DEFAULT_SCHEDULE.emailMode,
        quiet_start: DEFAULT_SCHEDULE.quietStart,
        quiet_end: DEFAULT_SCHEDULE.quietEnd,
        timezone: DEFAULT_SCHEDULE.timeZone,
        digest_hour: DEFAULT_SCHEDULE.digestHour,
      };
    }
    return {
      email_mode: stored.emailMode,
      quiet_start: stored.quietStart,
      quiet_end: stored.quietEnd,
      timezone: stored.timezone,
      digest_hour: stored.digestHour,
    };
  }

  private view(fields: ScheduleFields): ScheduleResponseDto {
    return { ...fields, mandatory_instant_categories: [...MANDATORY_INSTANT_CATEGORIES] };
  }

  private validate(body: unknown): Partial<ScheduleFields> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw invalid(NotificationsErrorCode.ValidationFailed, [
        { field: 'body', message: 'the body must be an object' },
      ]);
    }
    const input = body as Record<string, unknown>;
    const changes: Partial<ScheduleFields> = {};
    const problems: Array<{ field: string; message: string }> = [];
    if ('email_mode' in input) {
      if (EMAIL_MODES.includes(input.email_mode as EmailMode))
        changes.email_mode = input.email_mode as EmailMode;
      else
        problems.push({
          field: 'email_mode',
          message: `email_mode must be one of ${EMAIL_MODES.join(', ')}`,
        });
    }
    for (const field of ['quiet_start', 'quiet_end'] as const) {
      if (!(field in input)) continue;
      const value = input[field];
      if (value === null) changes[field] = null;
      else if (typeof value === 'string' && parseHHMM(value)) changes[field] = value;
      else
        problems.push({
          field,
          message: `${field} must be HH:MM (hour < 24, minute < 60) or null`,
        });
    }
    if ('timezone' in input) {
      if (typeof input.timezone === 'string' && resolveTimeZone(input.timezone))
        changes.timezone = input.timezone;
      else
        problems.push({
          field: 'timezone',
          message: 'timezone must be an IANA or Rails time zone name',
        });
    }
    if ('digest_hour' in input) {
      const hour = input.digest_hour;
      if (typeof hour === 'number' && Number.isInteger(hour) && hour >= 0 && hour <= 23)
        changes.digest_hour = hour;
      else
        problems.push({
          field: 'digest_hour',
          message: 'digest_hour must be an integer from 0 to 23',
        });
    }
    if (problems.length > 0) throw invalid(NotificationsErrorCode.ValidationFailed, problems);
    return changes;
  }
}
