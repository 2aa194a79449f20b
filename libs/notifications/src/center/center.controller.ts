import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import {
  ApiData,
  ApiErrors,
  Clock,
  IdParam,
  invalidQueryDoc,
  ListResult,
  NotIdParams,
  queryBoolean,
  UUID_PATTERN,
} from '@platform/core';
import {
  type AccessPolicy,
  ACCOUNT_SESSION_ERRORS,
  ACCOUNT_TOKEN_ERRORS,
  Authenticated,
  confinementOf,
  CSRF_ERROR,
  CurrentPrincipal,
  invalidDoc,
  PLATFORM_ADMIN_ERROR,
  type Principal,
} from '@platform/identity';
import type { NotificationAbsence } from '../entities.js';
import { NotificationsErrorCode, NotificationsException } from '../notifications-exception.js';
import {
  AbsenceResponseDto,
  BroadcastResponseDto,
  NotificationCategoryResponseDto,
  NotificationReadResponseDto,
  NotificationResponseDto,
  OkResponseDto,
  UnreadCountResponseDto,
} from '../notifications.openapi.js';
import { AbsencesRepository } from './absences.repository.js';
import { type BannerRow, BroadcastsRepository } from './broadcasts.repository.js';
import { BroadcastsService } from './broadcasts.service.js';
import {
  CreateAbsenceBody,
  CreateBroadcastBody,
  NOTIFICATIONS_DEFAULT_LIMIT,
  NOTIFICATIONS_MAX_LIMIT,
  NotificationListQuery,
} from './center.dto.js';
import { NotificationCenterService } from './center.service.js';

/** The spec's `limit`: never refused; out of range is clamped, malformed takes the default. */
export function clampLimit(limit: unknown): number {
  const first: unknown = Array.isArray(limit) ? limit[0] : limit;
  const parsed = typeof first === 'string' ? Number.parseInt(first, 10) : Number.NaN;
  return Number.isNaN(parsed)
    ? NOTIFICATIONS_DEFAULT_LIMIT
    : Math.min(NOTIFICATIONS_MAX_LIMIT, Math.max(1, parsed));
}

const absenceView = (a: NotificationAbsence): AbsenceResponseDto => ({
  id: a.id,
  starts_at: a.startsAt,
  ends_at: a.endsAt,
  note: a.note,
  created_at: a.createdAt,
});

const broadcastView = (b: BannerRow): BroadcastResponseDto => ({
  id: b.id,
  title: b.title,
  body: b.body,
  severity: b.severity,
  banner: b.banner,
  published_at: b.publishedAt,
});

/** A static token reads (notifications:read) and marks (write) its organization's notifications. */
const READ_CENTER: AccessPolicy = {
  scope: 'account',
  scopeResource: 'notifications',
  scopeLevel: 'read',
};
const MARK_READ: AccessPolicy = {
  scope: 'account',
  scopeResource: 'notifications',
  scopeLevel: 'update',
};

/**
 * Account-wide: no organization context is needed for any of these. A static token sees only
 * its own organization's notifications; the account's own settings (absences here) and
 * broadcast dismissals are not per organization, so only login sessions change or read them.
 */
@ApiTags('notifications')
@Controller()
@Authenticated({ scope: 'account', interactiveOnly: true })
export class NotificationCenterController {
  constructor(
    private readonly clock: Clock,
    private readonly center: NotificationCenterService,
    private readonly absences: AbsencesRepository,
    private readonly broadcasts: BroadcastsRepository,
    private readonly publisher: BroadcastsService,
  ) {}

  @Get('notifications')
  @ApiData(NotificationResponseDto, {
    list: true,
    description: 'a page of notifications, newest first, with `metadata.total`',
  })
  @ApiErrors(
    ...ACCOUNT_TOKEN_ERRORS,
    invalidQueryDoc('`unread` not true or false, or `offset` not a non-negative integer'),
  )
  @Authenticated(READ_CENTER)
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: NotificationListQuery,
  ): Promise<ListResult<NotificationResponseDto>> {
    const page = await this.center.list(
      principal.account.id,
      confinementOf(principal),
      queryBoolean(query.unread),
      clampLimit(query.limit),
      query.offset,
    );
    return new ListResult(page.items, page.total);
  }

  @Get('notifications/unread_count')
  @ApiData(UnreadCountResponseDto, { description: 'the number of unread notifications' })
  @ApiErrors(...ACCOUNT_TOKEN_ERRORS)
  @Authenticated(READ_CENTER)
  async unreadCount(@CurrentPrincipal() principal: Principal): Promise<UnreadCountResponseDto> {
    return {
      unread_count: await this.center.unreadCount(principal.account.id, confinementOf(principal)),
    };
  }

  @Patch('notifications/:id/read')
  @ApiData(NotificationReadResponseDto, { description: 'the notification is read' })
  @ApiErrors(...ACCOUNT_TOKEN_ERRORS, CSRF_ERROR, [
    404,
    'not_found',
    "no notification of the caller (of the token's organization) has this id",
  ])
  @Authenticated(MARK_READ)
  markRead(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id') id: string,
  ): Promise<NotificationReadResponseDto> {
    return this.center.markRead(principal.account.id, confinementOf(principal), id);
  }

  @Post('notifications/mark_all_read')
  @HttpCode(200)
  @ApiData(OkResponseDto, { description: 'every notification is read' })
  @ApiErrors(...ACCOUNT_TOKEN_ERRORS, CSRF_ERROR)
  @Authenticated(MARK_READ)
  async markAllRead(@CurrentPrincipal() principal: Principal): Promise<OkResponseDto> {
    await this.center.markAllRead(principal.account.id, confinementOf(principal));
    return { ok: true };
  }

  @Get('notification_categories')
  @ApiData(NotificationCategoryResponseDto, { list: true, description: 'the categories in order' })
  @ApiErrors(...ACCOUNT_TOKEN_ERRORS)
  @Authenticated(READ_CENTER)
  async categories(): Promise<NotificationCategoryResponseDto[]> {
    return (await this.center.categories()).map((c) => ({
      id: c.id,
      key: c.key,
      label: c.label,
      default_channels: c.defaultChannels,
      mandatory_for_admins: c.mandatoryForAdmins,
      severity: c.severity,
      feature_key: c.featureKey,
      superadmin_only: c.superadminOnly,
    }));
  }

  @Get('notification_absences')
  @ApiData(AbsenceResponseDto, { list: true, description: "the account's absences" })
  @ApiErrors(...ACCOUNT_SESSION_ERRORS)
  async listAbsences(@CurrentPrincipal() principal: Principal) {
    return (await this.absences.list(principal.account.id)).map(absenceView);
  }

  @Post('notification_absences')
  @ApiData(AbsenceResponseDto, { status: 201, description: 'the new absence' })
  @ApiErrors(
    ...ACCOUNT_SESSION_ERRORS,
    CSRF_ERROR,
    invalidDoc('starts_at, ends_at (after starts_at) or note'),
  )
  async createAbsence(@CurrentPrincipal() principal: Principal, @Body() body: CreateAbsenceBody) {
    const startsAt = new Date(body.starts_at);
    const endsAt = new Date(body.ends_at);
    if (!(endsAt > startsAt)) {
      throw new NotificationsException(
        NotificationsErrorCode.ValidationFailed,
        'Validation failed: ends_at must be after starts_at',
        {
          details: {
            fields: [{ field: 'ends_at', messages: ['ends_at must be after starts_at'] }],
          },
        },
      );
    }
    const absence = await this.absences.create(
      principal.account.id,
      { startsAt, endsAt, note: body.note ?? null },
      this.clock.now(),
    );
    return absenceView(absence);
  }

  @Delete('notification_absences/:id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the absence is deleted' })
  @ApiErrors(...ACCOUNT_SESSION_ERRORS, CSRF_ERROR, [
    404,
    'not_found',
    'no absence of the account has this id',
  ])
  async deleteAbsence(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id') id: string,
  ): Promise<void> {
    if (!(await this.absences.delete(principal.account.id, id))) {
      throw new NotificationsException(NotificationsErrorCode.NotFound, 'Absence not found');
    }
  }

  /**
   * Platform-wide, beyond any one organization: a platform admin's login session only. Every
   * account gets a `broadcast` notification too.
   */
  @Post('admin/broadcasts')
  @ApiData(BroadcastResponseDto, { status: 201, description: 'the published broadcast' })
  @ApiErrors(
    ...ACCOUNT_SESSION_ERRORS,
    CSRF_ERROR,
    PLATFORM_ADMIN_ERROR,
    invalidDoc('title, body, severity or banner'),
  )
  @Authenticated({ scope: 'account', platformAdmin: true, interactiveOnly: true })
  async publishBroadcast(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateBroadcastBody,
  ) {
    return broadcastView(await this.publisher.publish(body, principal.account.id));
  }

  /** The platform's banners, the same in every organization. */
  @Get('broadcasts/active')
  @ApiData(BroadcastResponseDto, { list: true, description: 'the broadcasts not dismissed' })
  @ApiErrors(...ACCOUNT_TOKEN_ERRORS)
  @Authenticated(READ_CENTER)
  async activeBroadcasts(@CurrentPrincipal() principal: Principal) {
    return (await this.broadcasts.active(principal.account.id, this.clock.now())).map(
      broadcastView,
    );
  }

  /**
   * Idempotent per account; the spec answers 200 to an unknown id, so one that is not a UUID
   * (which names no broadcast either) is answered alike, without a database read.
   */
  @Post('broadcasts/:id/dismiss')
  @HttpCode(200)
  @ApiData(OkResponseDto, { description: 'dismissed, also for an unknown id' })
  @ApiErrors(...ACCOUNT_SESSION_ERRORS, CSRF_ERROR)
  @NotIdParams('id')
  async dismissBroadcast(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<OkResponseDto> {
    if (UUID_PATTERN.test(id))
      await this.broadcasts.dismiss(principal.account.id, id, this.clock.now());
    return { ok: true };
  }
}
