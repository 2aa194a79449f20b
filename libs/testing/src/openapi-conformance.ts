import type { INestApplication, Type } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { type AppConfig, buildOpenApiDocument, DOCS_PATH, OPENAPI_PATH } from '@platform/core';
import { Ajv, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
import type { NextFunction, Request, Response } from 'express';

// ajv-formats is CommonJS: under ES modules its function is the `default` of its exports.
const addFormats = ajvFormats.default;

type Schema = Record<string, unknown>;
type DocumentedResponse = { content?: Record<string, { schema?: Schema }> };
type Operation = { responses?: Record<string, DocumentedResponse> };

const DOCUMENT_ID = 'openapi';
const MAX_CAPTURED_BYTES = 4 * 1024 * 1024;

/**
 * The OpenAPI 3.0 schemas as JSON Schema for ajv: `nullable` becomes a union with null, local
 * references point into the document registered as `openapi`, and a named object schema with
 * properties is closed, so a field the document does not name is a mismatch too.
 */
function toJsonSchema(node: unknown, named = false): unknown {
  if (Array.isArray(node)) return node.map((item) => toJsonSchema(item));
  if (node === null || typeof node !== 'object') return node;
  const { nullable, example: _example, ...rest } = node as Schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(rest)) {
    if (key === '$ref' && typeof value === 'string') out.$ref = `${DOCUMENT_ID}${value}`;
    else if (key === 'properties' && value && typeof value === 'object')
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, schema]) => [name, toJsonSchema(schema)]),
      );
    else out[key] = toJsonSchema(value);
  }
  if (named && out.properties && out.additionalProperties === undefined)
    out.additionalProperties = false;
  return nullable === true ? { anyOf: [out, { type: 'null' }] } : out;
}

/**
 * The error codes a response documents for its status (`ApiErrors` with named codes: an enum
 * of `code` beside the error envelope), or undefined when it allows any code of the status.
 */
export function documentedCodes(response: DocumentedResponse | undefined): string[] | undefined {
  const schema = response?.content?.['application/json']?.schema;
  const parts = [schema, ...((schema?.allOf as Schema[] | undefined) ?? [])];
  for (const part of parts) {
    const code = (part?.properties as Record<string, Schema> | undefined)?.code;
    if (Array.isArray(code?.enum)) return code.enum.map(String);
  }
  return undefined;
}

interface CompiledDocument {
  ajv: Ajv;
  validators: Map<string, ValidateFunction>;
  templates: Array<{ template: string; pattern: RegExp }>;
}

/** One ajv per distinct document (most test files build the same one), kept for the process. */
const compiledDocuments = new Map<string, CompiledDocument>();

function compile(document: OpenAPIObject): CompiledDocument {
  const key = JSON.stringify(document);
  let compiled = compiledDocuments.get(key);
  if (compiled) return compiled;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const schemas = document.components?.schemas ?? {};
  ajv.addSchema(
    {
      components: {
        schemas: Object.fromEntries(
          Object.entries(schemas).map(([name, schema]) => [name, toJsonSchema(schema, true)]),
        ),
      },
    },
    DOCUMENT_ID,
  );
  const templates = Object.keys(document.paths)
    // Literal segments first, so `/invitations/details` wins over `/invitations/{id}`.
    .sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0))
    .map((template) => ({
      template,
      pattern: new RegExp(
        `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`,
      ),
    }));
  compiled = { ajv, validators: new Map(), templates };
  compiledDocuments.set(key, compiled);
  return compiled;
}

/**
 * Checks every answer of a test app against the app's own OpenAPI document: the operation
 * (path template and method) must be documented, its status too, and a JSON body must match
 * the schema documented for that status. Where the operation names the error codes of a status,
 * an error answer of that status carries one of them, so a client can rely on the list. Other
 * bodies (probes' text, redirects, 204) are checked for their status only. Mismatches are kept
 * until `take()`.
 */
export class OpenApiConformance {
  private document?: OpenAPIObject;
  private compiled?: CompiledDocument;
  private readonly violations: string[] = [];
  /** Paths of the controllers a test adds for itself (and all below); they document nothing. */
  private readonly testOnlyPaths: RegExp[];

  constructor(
    private readonly app: INestApplication,
    private readonly config: AppConfig,
    testOnlyControllers: Type[],
  ) {
    this.testOnlyPaths = testOnlyControllers.map((controller) => {
      const path = String(Reflect.getMetadata('path', controller) ?? '').replace(/^\/+|\/+$/g, '');
      const pattern = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+');
      return new RegExp(`^/${pattern}(/|$)`);
    });
  }

  /** Express middleware: keeps the body the response sends and checks it when it is sent. */
  readonly middleware = (request: Request, response: Response, next: NextFunction): void => {
    const chunks: Buffer[] = [];
    let size = 0;
    const keep = (chunk: unknown, encoding?: unknown) => {
      // Express writes strings and buffers; anything else (a callback) is no body.
      const buffer = Buffer.isBuffer(chunk)
        ? chunk
        : typeof chunk === 'string'
          ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
          : chunk instanceof Uint8Array
            ? Buffer.from(chunk)
            : null;
      if (buffer === null) return;
      size += buffer.length;
      if (size <= MAX_CAPTURED_BYTES) chunks.push(buffer);
    };
    const write = response.write.bind(response) as (...args: unknown[]) => boolean;
    const end = response.end.bind(response) as (...args: unknown[]) => Response;
    response.write = ((...args: unknown[]) => {
      keep(args[0], args[1]);
      return write(...args);
    }) as Response['write'];
    response.end = ((...args: unknown[]) => {
      keep(args[0], args[1]);
      return end(...args);
    }) as Response['end'];
    response.on('finish', () => {
      try {
        this.check(request, response, size <= MAX_CAPTURED_BYTES ? Buffer.concat(chunks) : null);
      } catch (error) {
        this.violations.push(`${request.method} ${request.path}: ${String(error)}`);
      }
    });
    next();
  };

  /** The mismatches seen since the last call. */
  take(): string[] {
    return this.violations.splice(0);
  }

  private check(request: Request, response: Response, body: Buffer | null): void {
    // The document and the reference showing it describe the API, they are not part of it.
    if (request.path === OPENAPI_PATH) return;
    // Static assets see the path below their mount point; the full one is baseUrl + path.
    const fullPath = `${request.baseUrl}${request.path}`;
    if (fullPath === DOCS_PATH || fullPath.startsWith(`${DOCS_PATH}/`)) return;
    if (this.testOnlyPaths.some((pattern) => pattern.test(request.path))) return;
    this.document ??= buildOpenApiDocument(this.app, this.config);
    // Compiled once per app: finding the shared compilation serializes the whole document.
    this.compiled ??= compile(this.document);
    const compiled = this.compiled;
    const status = response.statusCode;
    const template = this.templateOf(request, compiled);
    const method = request.method.toUpperCase();
    const where = `${method} ${request.path} (${template ?? 'no route'}) answered ${status}`;
    if (template === undefined) {
      // Nothing is routed here; the router's own 404 (or 405) is the right answer.
      if (status !== 404 && status !== 405) this.violations.push(`${where}: no such operation`);
      return;
    }
    const operation = (this.document.paths[template] as Record<string, Operation | undefined>)[
      request.method.toLowerCase()
    ];
    if (!operation) {
      if (status !== 404 && status !== 405) this.violations.push(`${where}: operation missing`);
      return;
    }
    const responses = operation.responses ?? {};
    const documented =
      responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
    if (!documented) {
      this.violations.push(`${where}: status not documented`);
      return;
    }
    const type = String(response.getHeader('content-type') ?? '');
    if (!type.startsWith('application/json') || body === null || body.length === 0) return;
    const schema = documented.content?.['application/json']?.schema;
    if (!schema) {
      this.violations.push(`${where}: JSON body, but no JSON schema documented`);
      return;
    }
    const key = `${method} ${template} ${status}`;
    let validate = compiled.validators.get(key);
    if (!validate) {
      validate = compiled.ajv.compile(toJsonSchema(schema) as Schema);
      compiled.validators.set(key, validate);
    }
    const value: unknown = JSON.parse(body.toString('utf8'));
    const undocumented =
      status >= 400 && this.checkErrorCode(where, status, responses[String(status)], value);
    if (validate(value)) return;
    // The code's enum is reported above, by name; any other mismatch of the body still counts.
    const errors = (validate.errors ?? []).filter(
      (error) => !(undocumented && error.instancePath === '/code' && error.keyword === 'enum'),
    );
    if (errors.length > 0)
      this.violations.push(`${where}: body does not match\n${JSON.stringify(errors)}`);
  }

  /**
   * Whether an error answer carries a code its status does not name (and reports it). A status
   * documented without named codes, or a body without a code, is left to the schema.
   */
  private checkErrorCode(
    where: string,
    status: number,
    response: DocumentedResponse | undefined,
    value: unknown,
  ): boolean {
    const codes = documentedCodes(response);
    const code = (value as { code?: unknown } | null)?.code;
    if (codes === undefined || typeof code !== 'string' || codes.includes(code)) return false;
    this.violations.push(
      `${where}: error code \`${code}\` not documented for ${status} (documented: ${codes.join(', ')})`,
    );
    return true;
  }

  /** The document's path template of the route that answered. */
  private templateOf(request: Request, compiled: CompiledDocument): string | undefined {
    const route = (request as unknown as { route?: { path?: unknown } }).route;
    if (typeof route?.path === 'string') {
      const template = `${request.baseUrl}${route.path}`.replace(/:(\w+)/g, '{$1}');
      if (template in (this.document?.paths ?? {})) return template;
    }
    return compiled.templates.find(({ pattern }) => pattern.test(request.path))?.template;
  }
}
