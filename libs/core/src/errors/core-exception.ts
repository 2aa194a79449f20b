import { defineException } from './app-exception.js';

/** Errors of the HTTP contract itself, independent of any domain module. */
export enum CoreErrorCode {
  BadRequest = 'bad_request',
  Unauthorized = 'unauthorized',
  Forbidden = 'forbidden',
  NotFound = 'not_found',
  MethodNotAllowed = 'method_not_allowed',
  Conflict = 'conflict',
  Gone = 'gone',
  PayloadTooLarge = 'payload_too_large',
  UnsupportedMediaType = 'unsupported_media_type',
  ValidationFailed = 'validation_failed',
  UnsupportedApiVersion = 'unsupported_api_version',
  RateLimited = 'rate_limited',
  IdempotencyKeyInUse = 'idempotency_key_in_use',
  IdempotencyKeyReused = 'idempotency_key_reused',
  InternalError = 'internal_error',
  ServiceUnavailable = 'service_unavailable',
}

export const CORE_ERROR_STATUS: Record<CoreErrorCode, number> = {
  [CoreErrorCode.BadRequest]: 400,
  [CoreErrorCode.Unauthorized]: 401,
  [CoreErrorCode.Forbidden]: 403,
  [CoreErrorCode.NotFound]: 404,
  [CoreErrorCode.MethodNotAllowed]: 405,
  [CoreErrorCode.Conflict]: 409,
  [CoreErrorCode.Gone]: 410,
  [CoreErrorCode.PayloadTooLarge]: 413,
  [CoreErrorCode.UnsupportedMediaType]: 415,
  [CoreErrorCode.ValidationFailed]: 422,
  [CoreErrorCode.UnsupportedApiVersion]: 400,
  [CoreErrorCode.RateLimited]: 429,
  [CoreErrorCode.IdempotencyKeyInUse]: 409,
  [CoreErrorCode.IdempotencyKeyReused]: 422,
  [CoreErrorCode.InternalError]: 500,
  [CoreErrorCode.ServiceUnavailable]: 503,
};

export const CoreException = defineException<CoreErrorCode>('api', CORE_ERROR_STATUS);
