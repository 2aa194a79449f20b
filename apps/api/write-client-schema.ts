import { writeFileSync } from 'node:fs';
import {
  CLIENT_SCHEMA_PATH,
  renderClientSchema,
} from '../../libs/api-client/src/codegen/render-schema.js';
import { apiOpenApiDocument } from './openapi-document.js';

/** Writes the generated client's types from the API's document (run from the repository root). */
const schema = await renderClientSchema(await apiOpenApiDocument());
writeFileSync(CLIENT_SCHEMA_PATH, schema);
console.log(`wrote ${CLIENT_SCHEMA_PATH}`);
