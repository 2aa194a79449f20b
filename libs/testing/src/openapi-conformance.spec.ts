import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  type ArgumentsHost,
  Catch,
  Controller,
  type ExceptionFilter,
  Get,
  type INestApplication,
  Query,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  type AppConfig,
  AppException,
  ApiErrors,
  type RequestWithContext,
  sendError,
  toAppException,
} from '@platform/core';
import type { Response } from 'express';
import supertest from 'supertest';
import { documentedCodes, OpenApiConformance } from './openapi-conformance.js';

/** Answers whatever status and code the query asks for, in the error envelope. */
@Controller('refusals')
class RefusalsController {
  @Get('named')
  @ApiErrors(
    [403, 'forbidden', 'the member lacks the permission'],
    [403, 'insufficient_scope', "the token's scopes do not cover the route"],
  )
  named(@Query('status') status: string, @Query('code') code: string): never {
    throw new AppException(Number(status), code, 'refused');
  }

  @Get('bare')
  @ApiErrors(403)
  bare(@Query('code') code: string): never {
    throw new AppException(403, code, 'refused');
  }
}

/** The error envelope of the real filter, without its logging and outage bookkeeping. */
@Catch()
class EnvelopeFilter implements ExceptionFilter {
  catch(error: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<RequestWithContext>();
    sendError(toAppException(error, request), request, host.switchToHttp().getResponse<Response>());
  }
}

describe('the OpenAPI check of error codes', () => {
  let app: INestApplication;
  let conformance: OpenApiConformance;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      controllers: [RefusalsController],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    conformance = new OpenApiConformance(
      app,
      { publicUrl: 'http://localhost:3000' } as AppConfig,
      [],
    );
    app.use(conformance.middleware);
    app.useGlobalFilters(new EnvelopeFilter());
    await app.init();
  });

  afterAll(async () => {
    await app.close();
  });

  const answer = (path: string) =>
    supertest(app.getHttpServer() as Parameters<typeof supertest>[0]).get(path);

  it('lets a documented code of the status pass', async () => {
    await answer('/refusals/named?status=403&code=insufficient_scope').expect(403);
    expect(conformance.take()).toEqual([]);
  });

  it('names the operation, the status and a code the status does not document', async () => {
    await answer('/refusals/named?status=403&code=role_ceiling').expect(403);
    expect(conformance.take()).toEqual([
      'GET /refusals/named (/refusals/named) answered 403: error code `role_ceiling` not documented for 403 (documented: forbidden, insufficient_scope)',
    ]);
  });

  it('checks the codes the document adds to every operation like the named ones', async () => {
    await answer('/refusals/named?status=400&code=bad_request').expect(400);
    expect(conformance.take()).toEqual([]);
    await answer('/refusals/named?status=400&code=forbidden').expect(400);
    expect(conformance.take()).toEqual([
      expect.stringContaining('answered 400: error code `forbidden` not documented for 400'),
    ]);
  });

  it('allows any code of a status documented without named codes', async () => {
    await answer('/refusals/bare?code=role_ceiling').expect(403);
    expect(conformance.take()).toEqual([]);
  });

  it('reads the named codes of a response, and none of a bare one', () => {
    const envelope = { $ref: '#/components/schemas/ErrorEnvelope' };
    const named = {
      content: {
        'application/json': {
          schema: { allOf: [envelope, { properties: { code: { enum: ['gone'] } } }] },
        },
      },
    };
    expect(documentedCodes(named)).toEqual(['gone']);
    expect(documentedCodes({ content: { 'application/json': { schema: envelope } } })).toBe(
      undefined,
    );
    expect(documentedCodes(undefined)).toBe(undefined);
  });
});
