import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.js';

export type { components, operations, paths } from './schema.js';

export type PlatformClient = Client<paths>;

export interface PlatformClientOptions {
  /** The API's base URL, e.g. `https://api.example.com`. */
  baseUrl: string;
  /** A session JWT or an API token (`hq_pat_…`); absent for the public routes (login). */
  token?: string;
  /** Sent as `User-Agent`, so the API's request log names the client. */
  userAgent?: string;
}

/** A typed client of the Platform Control API, its paths and bodies from the OpenAPI document. */
export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  const headers: Record<string, string> = { 'API-Version': '1' };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  if (options.userAgent) headers['User-Agent'] = options.userAgent;
  return createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), headers });
}
