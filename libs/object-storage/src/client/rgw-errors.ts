import { CloudErrorCode, CloudException, upstreamStatusError } from '@platform/cloud-core';

/** What RGW said when it refused a request: its S3-style error code and message. */
export interface RgwRefusal {
  status: number;
  /** `NoSuchUser`, `SignatureDoesNotMatch`, `BucketAlreadyExists`, ... */
  code: string | undefined;
  message: string | undefined;
}

/**
 * RGW's error body: JSON `{"Code": ..., "Message": ...}` from the Admin Ops API, the XML
 * `<Error><Code>...</Code><Message>...</Message></Error>` of S3.
 */
export function refusalOf(status: number, body: unknown): RgwRefusal {
  if (body && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    const text = (key: string) => (typeof record[key] === 'string' ? record[key] : undefined);
    return { status, code: text('Code'), message: text('Message') };
  }
  if (typeof body === 'string') {
    const tag = (name: string) =>
      new RegExp(`<${name}>([^<]{0,500})</${name}>`).exec(body)?.[1] || undefined;
    return { status, code: tag('Code'), message: tag('Message') };
  }
  return { status, code: undefined, message: undefined };
}

/**
 * Rule 4 for RGW. The code names what happened (`NoSuchUser`), the message (when RGW gives one)
 * why; both reach `details.message` of a 409 or 422. A 403 is our own credentials refused
 * (`SignatureDoesNotMatch`, `InvalidAccessKeyId`, `AccessDenied` for missing admin caps), except
 * `UserSuspended`: the customer's user is locked, a state, not a credential problem.
 */
export function rgwError(refusal: RgwRefusal): InstanceType<typeof CloudException> {
  const message = [refusal.code, refusal.message].filter(Boolean).join(': ') || undefined;
  if (refusal.code === 'UserSuspended') {
    return new CloudException(CloudErrorCode.Conflict, 'The object-storage user is locked', {
      details: { provider: 'rgw', upstream_status: refusal.status, message },
    });
  }
  if (refusal.status === 401 || refusal.status === 403) {
    return new CloudException(
      CloudErrorCode.ProviderAuthFailed,
      "The platform's credentials for rgw were refused",
      {
        retryable: false,
        details: { provider: 'rgw', upstream_status: refusal.status, message },
      },
    );
  }
  return upstreamStatusError('rgw', refusal.status, message ? { message } : undefined);
}
