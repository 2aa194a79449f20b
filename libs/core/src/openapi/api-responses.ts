import { applyDecorators, type Type } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import { ErrorEnvelope } from '../errors/error-envelope.js';

/*
 * Documentation of response bodies. Response classes exist for the OpenAPI document and as the
 * return types of the view functions: the services answer plain objects of their shape, never
 * instances of them.
 */

/** The `metadata` of the success envelope that the global interceptor adds. */
export class ResponseMetadata {
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: "the tenant's organization; null on account-wide and public routes",
  })
  organization_id!: string | null;

  @ApiPropertyOptional({ format: 'uuid', description: 'present on project routes' })
  project_id?: string;

  @ApiProperty({ format: 'date-time', description: 'when the server answered' })
  timestamp!: string;

  @ApiPropertyOptional({ type: 'integer', description: 'lists only: the number of items' })
  count?: number;

  @ApiPropertyOptional({
    type: 'integer',
    description: 'paged lists only: the number of items before limit and offset',
  })
  total?: number;
}

interface DataOptions {
  status?: 200 | 201 | 202;
  list?: boolean;
  /** `data` may be null (e.g. nothing configured yet). */
  nullable?: boolean;
  description: string;
  /** Schemas the model reaches only through `oneOf`, so the document must carry them itself. */
  extraModels?: Type<unknown>[];
}

/** A success answer: `{metadata, data}` with `data` one `model`, or an array of them. */
export function ApiData(model: Type<unknown>, options: DataOptions) {
  const ref = { $ref: getSchemaPath(model) };
  const one = options.nullable ? { allOf: [ref], nullable: true } : ref;
  return applyDecorators(
    ApiExtraModels(ResponseMetadata, model, ...(options.extraModels ?? [])),
    ApiResponse({
      status: options.status ?? 200,
      description: options.description,
      schema: {
        type: 'object',
        required: ['metadata', 'data'],
        properties: {
          metadata: { $ref: getSchemaPath(ResponseMetadata) },
          data: options.list ? { type: 'array', items: ref } : one,
        },
      },
    }),
  );
}

/** One documented failure: status, error code and when it happens. */
export type ErrorDoc = readonly [status: number, code: string, when: string];

/** What a bare status of `@ApiErrors(...)` means when the route says nothing more. */
const GENERAL_ERRORS: Record<number, ErrorDoc> = {
  400: [400, 'bad_request', 'the request is malformed (e.g. a body that is not JSON)'],
  401: [401, 'unauthorized', 'no credentials, or an invalid, revoked or expired session or token'],
  403: [403, 'forbidden', 'the caller may not do this here'],
  404: [404, 'not_found', 'the resource is unknown or not visible to the caller'],
  409: [409, 'conflict', 'the request conflicts with the current state'],
  410: [410, 'gone', 'the link or token was used, superseded or has expired'],
  413: [413, 'payload_too_large', 'the body is larger than the route accepts'],
  415: [415, 'unsupported_media_type', 'the body is not of a media type the route reads'],
  422: [422, 'validation_failed', '`details.fields` names each failing field; nothing is written'],
  429: [429, 'rate_limited', 'too many requests; `Retry-After` says when to try again'],
  503: [503, 'service_unavailable', 'a dependency is unavailable; retry later'],
};

/**
 * Every failure of a route, one response per status. A bare status documents the general
 * meaning of that status; `[status, code, when]` names a code, and the response's `code` is
 * an enum of the named codes of its status, so clients can tell them apart. Always
 * `application/json`, also on routes that succeed with another media type.
 */
export function ApiErrors(...errors: Array<number | ErrorDoc>) {
  const byStatus = new Map<number, ErrorDoc[]>();
  const bare = new Set<number>();
  for (const error of errors) {
    const doc = typeof error === 'number' ? GENERAL_ERRORS[error] : error;
    if (!doc) throw new Error(`no general meaning of status ${String(error)}`);
    if (typeof error === 'number') bare.add(error);
    byStatus.set(doc[0], [...(byStatus.get(doc[0]) ?? []), doc]);
  }
  return applyDecorators(
    ApiExtraModels(ErrorEnvelope),
    ...[...byStatus].map(([status, docs]) => {
      const codes = [...new Set(docs.map(([, code]) => code))];
      return ApiResponse({
        status,
        description: docs.map(([, code, when]) => `\`${code}\`: ${when}`).join('; '),
        content: {
          'application/json': {
            schema: bare.has(status)
              ? { $ref: getSchemaPath(ErrorEnvelope) }
              : {
                  allOf: [
                    { $ref: getSchemaPath(ErrorEnvelope) },
                    { type: 'object', properties: { code: { type: 'string', enum: codes } } },
                  ],
                },
          },
        },
      });
    }),
  );
}
