import type {
  CreateAbsenceBody,
  CreateBroadcastBody,
} from '../../../libs/notifications/src/center/center.dto.js';
import type {
  AbsenceResponseDto,
  BroadcastResponseDto,
  NotificationCategoryResponseDto,
  NotificationReadResponseDto,
  NotificationResponseDto,
  OkResponseDto,
  PreferenceResponseDto,
  ScheduleResponseDto,
  UnreadCountResponseDto,
} from '../../../libs/notifications/src/notifications.openapi.js';
import type { Paging } from './alerting.js';
import { type Http, type Input, type Mode, segment } from './http.js';

export interface NotificationListQuery extends Paging {
  unread?: boolean;
}

/** The body of `PATCH /notification_preferences`: rows upserted together. */
export interface PreferencesBody {
  preferences: Array<Pick<PreferenceResponseDto, 'category_key' | 'channel' | 'enabled'>>;
}

/** The body of `PATCH /notification_schedule`: the fields to change. */
export type ScheduleBody = Partial<Omit<ScheduleResponseDto, 'mandatory_instant_categories'>>;

/** The notification center: notifications, categories, absences and broadcasts. */
export function notificationCenterClient<M extends Mode>(http: Http<M>) {
  return {
    list: (query: NotificationListQuery = {}) =>
      http.get<NotificationResponseDto[]>('/notifications', { ...query }),
    unreadCount: () => http.get<UnreadCountResponseDto>('/notifications/unread_count'),
    markRead: (id: string) =>
      http.patch<NotificationReadResponseDto>(`/notifications/${segment(id)}/read`, undefined),
    markAllRead: () => http.post<OkResponseDto>('/notifications/mark_all_read', undefined, 200),
    categories: () => http.get<NotificationCategoryResponseDto[]>('/notification_categories'),
    absences: () => http.get<AbsenceResponseDto[]>('/notification_absences'),
    createAbsence: (body: Input<M, CreateAbsenceBody>) =>
      http.post<AbsenceResponseDto>('/notification_absences', body, 201),
    deleteAbsence: (id: string) => http.delete(`/notification_absences/${segment(id)}`),
    /** Platform admins only. */
    publishBroadcast: (body: Input<M, CreateBroadcastBody>) =>
      http.post<BroadcastResponseDto>('/admin/broadcasts', body, 201),
    activeBroadcasts: () => http.get<BroadcastResponseDto[]>('/broadcasts/active'),
    dismissBroadcast: (id: string) =>
      http.post<OkResponseDto>(`/broadcasts/${segment(id)}/dismiss`, undefined, 200),
  };
}

/** `/notification_preferences`: the saved rows per category and channel. */
export function notificationPreferencesClient<M extends Mode>(http: Http<M>) {
  return {
    list: () => http.get<PreferenceResponseDto[]>('/notification_preferences'),
    update: (body: Input<M, PreferencesBody>) =>
      http.patch<OkResponseDto>('/notification_preferences', body),
  };
}

/** `/notification_schedule`: the account's e-mail mode, quiet hours and digest hour. */
export function notificationScheduleClient<M extends Mode>(http: Http<M>) {
  return {
    show: () => http.get<ScheduleResponseDto>('/notification_schedule'),
    update: (body: Input<M, ScheduleBody>) =>
      http.patch<ScheduleResponseDto>('/notification_schedule', body),
  };
}
