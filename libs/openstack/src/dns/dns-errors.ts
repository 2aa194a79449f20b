import { CloudErrorCode, CloudException } from '@platform/cloud-core';
import { CoreErrorCode, CoreException, defineException, type ErrorDoc } from '@platform/core';

export enum DnsErrorCode {
  VerificationFailed = 'verification_failed',
}

export const DnsException = defineException<DnsErrorCode>('dns', {
  [DnsErrorCode.VerificationFailed]: 422,
});

/** A field the body validation could not check alone (it needs the path or the zone). */
export const invalidField = (field: string, message: string) =>
  new CoreException(CoreErrorCode.ValidationFailed, `Validation failed: ${message}`, {
    details: { fields: [{ field, messages: [message] }] },
  });

export const recordsetNotFound = (name: string, type: string) =>
  new CloudException(CloudErrorCode.NotFound, `The zone has no ${type} record set named ${name}`);

export const ZONE_NOT_FOUND: ErrorDoc = [404, 'not_found', 'no zone of the project has this id'];
export const RECORDSET_NOT_FOUND: ErrorDoc = [
  404,
  'not_found',
  'no zone of the project has this id, or the zone has no record set of this name and type',
];
export const DUPLICATE: ErrorDoc = [
  409,
  'conflict',
  'Designate already has it: a zone of this name (in any project), or a record set of this name and type',
];
export const VERIFICATION_FAILED: ErrorDoc = [
  422,
  'verification_failed',
  'no TXT record `_platform-verification.<zone name>` with the value `verification_token` resolves; the message says what was expected where, `details.found` what was found',
];
