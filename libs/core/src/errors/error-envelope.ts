import { SetMetadata } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** One entry of `errors` in the multi-error envelope. */
export class ErrorEnvelopeItem {
  @ApiProperty({ example: 'malformed_payload' })
  code!: string;

  @ApiProperty({ example: 'The payload needs a non-empty alerts array' })
  message!: string;

  @ApiProperty({ example: 422 })
  status!: number;

  @ApiPropertyOptional({ type: 'integer', description: 'alert ingest: the index of the alert' })
  index?: number;

  @ApiPropertyOptional({ description: 'alert ingest: the fingerprint of the alert, if it had one' })
  fingerprint?: string;
}

/** The body of every error response. */
export class ErrorEnvelope {
  @ApiProperty({ example: 'validation_failed' })
  code!: string;

  @ApiProperty({ example: 'name must be a string' })
  message!: string;

  @ApiProperty({ example: 'api', description: 'the module that produced the error' })
  source_service!: string;

  @ApiProperty({ example: 'projects.create', description: 'the operation that failed' })
  source_operation!: string;

  @ApiProperty({ description: 'whether the same request may succeed when retried' })
  retryable!: boolean;

  @ApiProperty({ description: 'also sent as the X-Request-Id header' })
  request_id!: string;

  @ApiPropertyOptional({ description: 'machine-readable detail, e.g. the failing fields' })
  details?: unknown;

  @ApiPropertyOptional({
    type: [ErrorEnvelopeItem],
    description:
      'routes with the multi-error envelope (alert ingest) only: every error of the request',
  })
  errors?: ErrorEnvelopeItem[];
}

export const MULTI_ERROR_ENVELOPE = 'platform:multi-error-envelope';

/**
 * The route's errors also carry `errors: [{code, message, status}]` (the alerting spec's
 * ingest envelope `{request_id, errors}`). The general fields stay, so the body satisfies both
 * shapes and clients of either keep working. Exception filters get no handler, so the
 * ApiContractGuard, which runs first on every matched route, copies this marker into the
 * request context where the filter reads it; errors raised before a route matched (such as
 * a body that is not JSON) keep the general envelope.
 */
export const MultiErrorEnvelope = (): MethodDecorator & ClassDecorator =>
  SetMetadata(MULTI_ERROR_ENVELOPE, true);
