import { DataSource } from 'typeorm';
import { bearer } from '../support/identity.js';
import type { CloudWorld } from './support.js';

/** Requests to the API as a member (the organization's owner unless another JWT is given). */
export function requests(w: CloudWorld) {
  const send =
    (method: 'get' | 'post' | 'put' | 'patch' | 'delete') =>
    (path: string, body?: unknown, jwt = w.owner.jwt) => {
      const request = w.t.request()[method](path).set(bearer(jwt));
      return body === undefined ? request : request.send(body as object);
    };
  return {
    get: (path: string, jwt?: string) => send('get')(path, undefined, jwt),
    post: send('post'),
    put: send('put'),
    patch: send('patch'),
    del: (path: string, jwt?: string) => send('delete')(path, undefined, jwt),
  };
}

export interface AuditRow {
  action: string;
  target_type: string;
  target_id: string;
  project_id: string | null;
  organization_id: string;
  actor_account_id: string;
  details: Record<string, unknown>;
}

/** The audit rows of the given actions, oldest first. */
export function auditRows(w: CloudWorld, actions: string[]): Promise<AuditRow[]> {
  return w.t.get(DataSource).query(
    `SELECT action, target_type, target_id, project_id, organization_id, actor_account_id, details
         FROM audit_log WHERE action = ANY($1) ORDER BY created_at, id`,
    [actions],
  );
}

/** The field names a 422 `validation_failed` answer names. */
export const failedFields = (body: { details?: { fields?: Array<{ field: string }> } }) =>
  (body.details?.fields ?? []).map((f) => f.field);
