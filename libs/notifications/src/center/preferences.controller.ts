import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiBody, ApiTags } from '@nestjs/swagger';
import { ApiData, ApiErrors, Clock } from '@platform/core';
import {
  ACCOUNT_SESSION_ERRORS,
  Authenticated,
  CSRF_ERROR,
  CurrentPrincipal,
  type Principal,
} from '@platform/identity';
import { CHANNELS } from '../entities.js';
import { invalid, NotificationsErrorCode } from '../notifications-exception.js';
import { OkResponseDto, PreferenceResponseDto } from '../notifications.openapi.js';
import { NotificationCenterRepository } from './notification-center.repository.js';
import { type PreferenceRow, PreferencesRepository } from './preferences.repository.js';

export const MAX_PREFERENCE_ROWS = 200;

/**
 * The account's notification preferences. They are not per organization (an alert e-mail
 * switched off is off in every organization), so only login sessions read or change them:
 * a static token acts only inside its own organization.
 */
@ApiTags('notifications')
@Controller('notification_preferences')
@Authenticated({ scope: 'account', interactiveOnly: true })
export class PreferencesController {
  constructor(
    private readonly clock: Clock,
    private readonly preferences: PreferencesRepository,
    private readonly center: NotificationCenterRepository,
  ) {}

  /** The saved rows only; a category/channel without a row uses the category's defaults. */
  @Get()
  @ApiData(PreferenceResponseDto, { list: true, description: 'the saved preferences' })
  @ApiErrors(...ACCOUNT_SESSION_ERRORS)
  async list(@CurrentPrincipal() principal: Principal): Promise<PreferenceResponseDto[]> {
    return (await this.preferences.list(principal.account.id)).map((p) => ({
      id: p.id,
      category_key: p.categoryKey,
      channel: p.channel,
      enabled: p.enabled,
    }));
  }

  /** Upserts the sent rows atomically: one invalid row and nothing is saved. */
  @Patch()
  @ApiData(OkResponseDto, { description: 'every row is saved' })
  @ApiErrors(...ACCOUNT_SESSION_ERRORS, CSRF_ERROR, [
    422,
    'unprocessable_entity',
    'preferences is no array of at most 200 rows, or a row lacks a configurable category_key, a channel of in_app, email, phone, sms or a boolean enabled; `details.fields` names each and nothing is saved',
  ])
  @ApiBody({
    schema: {
      type: 'object',
      required: ['preferences'],
      properties: {
        preferences: {
          type: 'array',
          items: {
            type: 'object',
            required: ['category_key', 'channel', 'enabled'],
            properties: {
              category_key: { type: 'string' },
              channel: { type: 'string', enum: [...CHANNELS] },
              enabled: { type: 'boolean' },
            },
          },
        },
      },
    },
  })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
  ): Promise<OkResponseDto> {
    const rows = this.validate(body, await this.configurableCategories());
    await this.preferences.upsert(principal.account.id, rows, this.clock.now());
    return { ok: true };
  }

  private async configurableCategories(): Promise<Set<string>> {
    return new Set(
      (await this.center.categories()).filter((c) => !c.superadminOnly).map((c) => c.key),
    );
  }

  private validate(body: unknown, categories: Set<string>): PreferenceRow[] {
    const list = (body as { preferences?: unknown } | null)?.preferences;
    if (!Array.isArray(list)) {
      throw invalid(NotificationsErrorCode.UnprocessableEntity, [
        {
          field: 'preferences',
          message: 'preferences must be an array of {category_key, channel, enabled}',
        },
      ]);
    }
    if (list.length > MAX_PREFERENCE_ROWS) {
      throw invalid(NotificationsErrorCode.UnprocessableEntity, [
        { field: 'preferences', message: `at most ${MAX_PREFERENCE_ROWS} rows per request` },
      ]);
    }
    const problems: Array<{ field: string; message: string }> = [];
    list.forEach((row: unknown, index) => {
      const at = `preferences[${index}]`;
      if (typeof row !== 'object' || row === null || Array.isArray(row)) {
        problems.push({ field: at, message: `${at} must be an object` });
        return;
      }
      const { category_key: key, channel, enabled } = row as Record<string, unknown>;
      if (typeof key !== 'string')
        problems.push({ field: `${at}.category_key`, message: `${at}.category_key is required` });
      else if (!categories.has(key))
        problems.push({
          field: `${at}.category_key`,
          message: `${at}.category_key "${key}" is not a configurable category`,
        });
      if (typeof channel !== 'string')
        problems.push({ field: `${at}.channel`, message: `${at}.channel is required` });
      else if (!(CHANNELS as readonly string[]).includes(channel)) {
        problems.push({
          field: `${at}.channel`,
          message: `${at}.channel must be one of ${CHANNELS.join(', ')}`,
        });
      }
      if (typeof enabled !== 'boolean')
        problems.push({ field: `${at}.enabled`, message: `${at}.enabled must be a boolean` });
    });
    if (problems.length > 0) throw invalid(NotificationsErrorCode.UnprocessableEntity, problems);
    // The last row wins when the same category and channel appear twice.
    const unique = new Map<string, PreferenceRow>();
    for (const row of list as PreferenceRow[]) {
      unique.set(`${row.category_key}:${row.channel}`, {
        category_key: row.category_key,
        channel: row.channel,
        enabled: row.enabled,
      });
    }
    return [...unique.values()];
  }
}
