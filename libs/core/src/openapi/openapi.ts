import type { INestApplication } from '@nestjs/common';
import {
  DocumentBuilder,
  getSchemaPath,
  type OpenAPIObject,
  type ResponseObject,
  type SchemaObject,
  SwaggerModule,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { AppConfig } from '../config/app-config.js';
import { ErrorEnvelope } from '../errors/error-envelope.js';
import { operationId } from '../http/operation-id.js';
import { summaryOf } from './operation-summary.js';
import type { ErrorDoc } from './api-responses.js';
import { UNVERSIONED_EXTENSION } from '../versioning/deprecated.decorator.js';

export const OPENAPI_PATH = '/openapi.json';

/** The security schemes of the document, by name; routes name them through `@Authenticated`. */
export const SECURITY_SCHEMES = {
  bearer: 'bearer',
  session: 'session',
  ingestToken: 'ingest_token',
  metricsToken: 'metrics_token',
} as const;

export function buildOpenApiDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Platform Control API')
      .setDescription(
        'Multi-tenant cloud control API. Success bodies are `{metadata, data}` envelopes; ' +
          'errors use the error envelope. Send `API-Version: 1` (the default).',
      )
      .setVersion('1')
      .addServer(config.publicUrl)
      .addBearerAuth(
        {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT or hq_pat_…',
          description: 'a session JWT or an API token (`hq_pat_…`); also as `X-Access-Token`',
        },
        SECURITY_SCHEMES.bearer,
      )
      .addCookieAuth(
        '_hq_session',
        {
          type: 'apiKey',
          in: 'cookie',
          description: 'the browser session; writes also need the `X-CSRF-Token` header',
        },
        SECURITY_SCHEMES.session,
      )
      .addBearerAuth(
        {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'hq_ing_…',
          description: 'an ingest token (`hq_ing_…`) of the project; also as `X-Access-Token`',
        },
        SECURITY_SCHEMES.ingestToken,
      )
      .addBearerAuth(
        {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'METRICS_TOKEN',
          description: 'the METRICS_TOKEN of the deployment, for the metrics scrape',
        },
        SECURITY_SCHEMES.metricsToken,
      )
      .addGlobalParameters({
        name: 'API-Version',
        in: 'header',
        required: false,
        schema: { type: 'integer', default: 1 },
        description: 'Major API version; absent means the latest stable (1).',
      })
      .build(),
    {
      extraModels: [ErrorEnvelope],
      operationIdFactory: (controllerKey, methodKey) =>
        operationId({ name: controllerKey }, { name: methodKey }),
    },
  );
  document.openapi = '3.0.1';
  declarePathParameters(document);
  declarePublicOperations(document);
  declareSummaries(document);
  typeNullableUnions(document);
  declareContractErrors(document);
  return document;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

/**
 * OpenAPI requires every `{name}` of a path to be declared as a path parameter of each of its
 * operations. Handlers that take their tenant or resource from the principal rather than from
 * `@Param()` declare nothing, so the missing ones are added here, as required strings.
 */
function declarePathParameters(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths)) {
    const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
    if (names.length === 0) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const parameters = (operation.parameters ??= []);
      const declared = new Set(
        parameters.flatMap((p) => ('in' in p && p.in === 'path' ? [p.name] : [])),
      );
      const missing = names.filter((name) => !declared.has(name));
      // In path order, ahead of the query and header parameters.
      parameters.unshift(
        ...missing.map((name) => ({
          name,
          in: 'path' as const,
          required: true,
          schema: { type: 'string' as const },
        })),
      );
    }
  }
}

/**
 * `@Authenticated(...)` names the credentials of every other route, and a route declares
 * either it or `@Public()`: an operation without security is public, which OpenAPI says with
 * an empty list (a decorator cannot, the generator drops empty metadata).
 */
function declarePublicOperations(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths))
    for (const method of METHODS) {
      const operation = item[method];
      if (operation) operation.security ??= [];
    }
}

/** Every operation has a summary: its own (`@ApiOperation`), or one made of its operation id. */
function declareSummaries(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths))
    for (const method of METHODS) {
      const operation = item[method];
      if (operation?.operationId) operation.summary ??= summaryOf(operation.operationId);
    }
}

/**
 * OpenAPI 3.0 reads `nullable` only beside a `type`, which the generator leaves out of a
 * property that is one of several referenced objects or null: such unions get `type: object`.
 */
function typeNullableUnions(document: OpenAPIObject): void {
  for (const schema of Object.values(document.components?.schemas ?? {}))
    for (const property of Object.values((schema as SchemaObject).properties ?? {})) {
      const union = property as SchemaObject;
      const members = union.oneOf ?? union.anyOf;
      if (union.nullable && !union.type && members?.every((member) => '$ref' in member))
        union.type = 'object';
    }
}

const VERSION_HEADER = 'API-Version';

/**
 * What any operation may answer before its handler runs, whatever the route: the body read
 * and the input rules of every request (request-body.ts, input-rules.ts).
 */
const CONTRACT_ERRORS: readonly ErrorDoc[] = [
  [400, 'bad_request', 'a body that is not JSON or nests too deep'],
  [413, 'payload_too_large', 'a body larger than the API reads'],
  [415, 'unsupported_media_type', 'a body of a media type, charset or Content-Encoding not read'],
  [
    422,
    'validation_failed',
    'a NUL character or a lone surrogate in a path or query parameter or in the body',
  ],
];

/**
 * Versioned operations also check the `API-Version` header first, and need PostgreSQL and Redis
 * (sessions, tokens, rate limits and their own data) to answer.
 */
const VERSIONED_ERRORS: readonly ErrorDoc[] = [
  [400, 'unsupported_api_version', 'an API-Version this route does not serve'],
  [503, 'service_unavailable', 'PostgreSQL or Redis is unavailable; retryable'],
];

/**
 * Adds the contract's failures to every operation, like the `API-Version` header itself: to the
 * response the operation documents for that status (its `code` enum gains the code), or as a
 * response of their own. Unversioned operations (probes) neither read the header nor answer
 * `unsupported_api_version`, and document their own 503.
 */
function declareContractErrors(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths))
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const unversioned = (operation as unknown as Record<string, unknown>)[UNVERSIONED_EXTENSION];
      if (unversioned)
        operation.parameters = operation.parameters?.filter(
          (p) => !('in' in p && p.in === 'header' && p.name === VERSION_HEADER),
        );
      for (const [status, code, when] of unversioned
        ? CONTRACT_ERRORS
        : [...CONTRACT_ERRORS, ...VERSIONED_ERRORS]) {
        const existing = operation.responses[status] as ResponseObject | undefined;
        if (!existing) {
          operation.responses[status] = errorResponse(`\`${code}\`: ${when}`, [code]);
          continue;
        }
        const schema = existing.content?.['application/json']?.schema as SchemaObject | undefined;
        const codes = (schema?.allOf?.[1] as SchemaObject | undefined)?.properties?.code as
          SchemaObject | undefined;
        // A bare error envelope already allows every code of its status.
        if (!codes?.enum || codes.enum.includes(code)) continue;
        codes.enum.push(code);
        existing.description += `; \`${code}\`: ${when}`;
      }
    }
}

function errorResponse(description: string, codes: string[]): ResponseObject {
  return {
    description,
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
  };
}

/** Where the browsable reference (Swagger UI, served from the installed package) lives. */
export const DOCS_PATH = '/docs';

/**
 * Serves the document generated from the controllers, built once on first request, and the
 * browsable reference on it: Swagger UI's assets from the swagger-ui-dist package that
 * @nestjs/swagger installs (no CDN), with the same document in its script.
 */
export function serveOpenApiDocument(app: INestApplication, config: AppConfig): void {
  let document: OpenAPIObject | undefined;
  const built = () => (document ??= buildOpenApiDocument(app, config));
  app.getHttpAdapter().get(OPENAPI_PATH, (_request: Request, response: Response) => {
    response.json(built());
  });
  SwaggerModule.setup(DOCS_PATH, app, built, {
    raw: false,
    customSiteTitle: 'Platform Control API',
  });
}
