import { applyDecorators, type Type } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiParam,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import { ErrorEnvelope } from '@platform/core';

/*
 * Documentation of the responses of the escalation API (on-call rosters here, chains, steps and
 * acknowledgements in the escalation library, which imports these). The classes here and in the
 * `*.openapi.ts` files beside the controllers exist for the OpenAPI document only: the services
 * answer plain objects of the same shape (see roster-views.ts, chain-view.ts), never instances
 * of these.
 */

/** The `metadata` of the success envelope that the global interceptor adds. */
export class ResponseMetadata {
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: "the project's organization; null on the public acknowledgement routes",
  })
  organization_id!: string | null;

  @ApiPropertyOptional({ format: 'uuid', description: 'present on project routes' })
  project_id?: string;

  @ApiProperty({ format: 'date-time', description: 'when the server answered' })
  timestamp!: string;

  @ApiPropertyOptional({ type: 'integer', description: 'lists only: the number of items' })
  count?: number;
}

interface DataOptions {
  status?: 200 | 201;
  list?: boolean;
  description: string;
  /** Schemas the model reaches only through `oneOf`, so the document must carry them itself. */
  extraModels?: Type<unknown>[];
}

/** A success answer: `{metadata, data}` with `data` one `model`, or an array of them. */
export function ApiData(model: Type<unknown>, options: DataOptions) {
  const ref = { $ref: getSchemaPath(model) };
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
          data: options.list ? { type: 'array', items: ref } : ref,
        },
      },
    }),
  );
}

/** One documented failure: status, error code and when it happens. */
export type ErrorDoc = readonly [status: number, code: string, when: string];

/**
 * Every failure of a route, one response per status whose `code` is an enum of the codes that
 * status can carry, so clients can tell `invalid_signed_token` from `signed_link_expired`.
 * Always `application/json`, also on routes that succeed with another media type.
 */
export function ApiErrors(...errors: ErrorDoc[]) {
  const byStatus = new Map<number, ErrorDoc[]>();
  for (const error of errors) byStatus.set(error[0], [...(byStatus.get(error[0]) ?? []), error]);
  return applyDecorators(
    ApiExtraModels(ErrorEnvelope),
    ...[...byStatus].map(([status, docs]) => {
      const codes = [...new Set(docs.map(([, code]) => code))];
      return ApiResponse({
        status,
        description: docs.map(([, code, when]) => `\`${code}\`: ${when}`).join('; '),
        content: {
          'application/json': {
            schema: {
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

/** Failures every project route of the escalation API (rosters included) shares. */
export const ACCESS_ERRORS: readonly ErrorDoc[] = [
  [401, 'unauthorized', 'no credentials, or an invalid, revoked or expired session or token'],
  [403, 'forbidden', 'the member lacks the alerts permission the route needs'],
  [
    403,
    'insufficient_scope',
    "the token's scopes do not cover the route's scope resource at the level it needs",
  ],
  [403, 'static_token_cross_project', 'a token bound to another project'],
  [403, 'alerts_capability_not_enabled', 'the project does not have the alerts capability'],
];

/** 404 for the project (unknown or not visible to the caller), and for `what` when given. */
export const notFound = (what?: string): ErrorDoc => [
  404,
  'not_found',
  'the project is unknown or not visible to the caller, an id in the path is not a UUID' +
    (what ? `, or ${what}` : ''),
];

/** 422 with `details.fields: [{field, messages}]`; nothing was written. */
export const invalid = (rules: string): ErrorDoc => [
  422,
  'validation_failed',
  `${rules}; \`details.fields\` names each failing field with its messages and nothing is written`,
];

const CSRF: ErrorDoc = [
  403,
  'invalid_csrf_token',
  'a cookie session without an X-CSRF-Token header matching its CSRF cookie',
];

/** The shared access failures of a project route that reads, then the route's own. */
export const ApiProjectErrors = (...errors: ErrorDoc[]) => ApiErrors(...ACCESS_ERRORS, ...errors);

/** The shared access failures of a project route that writes, then the route's own. */
export const ApiProjectWriteErrors = (...errors: ErrorDoc[]) =>
  ApiErrors(...ACCESS_ERRORS, CSRF, ...errors);

/** `{project_id}`, which every project route carries and no handler reads as a parameter. */
export const ApiProjectParam = () =>
  ApiParam({
    name: 'project_id',
    type: String,
    format: 'uuid',
    description: 'the project; a malformed or unknown id answers 404 `not_found`',
  });

/** A path id checked as a UUID; anything else names nothing and answers 404. */
export const ApiIdParam = (name: string, description: string) =>
  ApiParam({ name, type: String, format: 'uuid', description });
