import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import { buildOpenApiDocument, loadConfig } from '@platform/core';
import { ApiModule } from './api.module.js';

/** The server the generated client's document names; clients take theirs at run time. */
export const DOCUMENT_SERVER_URL = 'http://localhost:3000';

/**
 * The OpenAPI document of the API, built without PostgreSQL or Redis: Nest's preview mode
 * resolves the module graph and the routes without instantiating a provider, which is all the
 * document reads. The config is the defaults, so the document does not vary with the machine.
 */
export async function apiOpenApiDocument(): Promise<OpenAPIObject> {
  const config = { ...loadConfig({ NODE_ENV: 'development' }), publicUrl: DOCUMENT_SERVER_URL };
  const app = await NestFactory.create(ApiModule.forRoot(config), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  try {
    return buildOpenApiDocument(app, config);
  } finally {
    await app.close();
  }
}
