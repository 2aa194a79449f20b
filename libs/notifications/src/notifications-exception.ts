import { defineException } from '@platform/core';

export enum NotificationsErrorCode {
  NotFound = 'not_found',
  UnprocessableEntity = 'unprocessable_entity',
  ValidationFailed = 'validation_failed',
}

export const NotificationsException = defineException<NotificationsErrorCode>('notifications', {
  [NotificationsErrorCode.NotFound]: 404,
  [NotificationsErrorCode.UnprocessableEntity]: 422,
  [NotificationsErrorCode.ValidationFailed]: 422,
});

export function invalid(
  code: NotificationsErrorCode,
  fields: Array<{ field: string; message: string }>,
) {
  return new NotificationsException(
    code,
    `Validation failed: ${fields.map((f) => f.message).join('; ')}`,
    {
      details: { fields: fields.map((f) => ({ field: f.field, messages: [f.message] })) },
    },
  );
}
