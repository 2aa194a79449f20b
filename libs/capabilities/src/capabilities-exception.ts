import { AppException, defineException } from '@platform/core';

export enum CapabilitiesErrorCode {
  NotFound = 'not_found',
  ValidationFailed = 'validation_failed',
  ExceedsCeiling = 'exceeds_ceiling',
  PlatformAdminRequired = 'platform_admin_required',
  RequestNotPending = 'request_not_pending',
}

export const CapabilitiesException = defineException<CapabilitiesErrorCode>('capabilities', {
  [CapabilitiesErrorCode.NotFound]: 404,
  [CapabilitiesErrorCode.ValidationFailed]: 422,
  [CapabilitiesErrorCode.ExceedsCeiling]: 422,
  [CapabilitiesErrorCode.PlatformAdminRequired]: 403,
  [CapabilitiesErrorCode.RequestNotPending]: 409,
});

/**
 * 403 `<feature>_capability_not_enabled` (e.g. `alerts_capability_not_enabled`). The code is
 * built from the feature key, so it stands outside the table above; the catalog bounds it.
 */
export function capabilityNotEnabled(featureKey: string, kind?: string): AppException {
  return new AppException(
    403,
    `${featureKey}_capability_not_enabled`,
    kind
      ? `The project's ${featureKey} capability does not include ${kind}; ask for it with a feature request`
      : `The project does not have the ${featureKey} capability; ask for it with a feature request`,
    { service: 'capabilities' },
  );
}
