import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { ClusterAccess, RequestHeaders } from './cluster-access.js';

export interface RequestOptions {
  query?: Record<string, string | undefined>;
  /** Sent as JSON. */
  body?: unknown;
  contentType?: string;
  accept?: string;
  signal?: AbortSignal;
}

/**
 * One request to the API server with the access's agent and credentials; resolves with the
 * response once its head arrived (the body is the caller's to read), whatever its status.
 */
export async function sendRequest(
  access: ClusterAccess,
  server: string,
  method: string,
  path: string,
  options: RequestOptions,
): Promise<IncomingMessage> {
  const { agent, headers } = await access.prepare();
  const url = new URL(server + path);
  for (const [key, value] of Object.entries(options.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, value);
  }
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const requestHeaders: RequestHeaders = {
    ...headers,
    Accept: options.accept ?? 'application/json',
  };
  if (body !== undefined) {
    requestHeaders['Content-Type'] = options.contentType ?? 'application/json';
    requestHeaders['Content-Length'] = String(Buffer.byteLength(body));
  }
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(url, {
      method,
      agent,
      headers: requestHeaders,
      signal: options.signal,
    });
    request.once('response', (response: IncomingMessage) => {
      // Readers see stream errors; one after reading stopped (an abort) is no crash.
      response.on('error', ignore);
      resolve(response);
    });
    request.on('error', reject);
    request.end(body);
  });
}

export async function readBody(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

function ignore(): void {}
