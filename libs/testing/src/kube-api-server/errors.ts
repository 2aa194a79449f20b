import { type KindRef, qualifiedResource } from './kinds.js';

export type StatusReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'BadRequest'
  | 'Expired'
  | 'Gone'
  | 'MethodNotAllowed'
  | 'UnsupportedMediaType'
  | 'Forbidden'
  | 'Unauthorized'
  | 'InternalError';

/** A failure answered as a Kubernetes `Status` object. */
export class KubeStatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: { name?: string; group?: string; kind?: string },
  ) {
    super(message);
  }

  toStatus(): KubeStatus {
    return failureStatus(this.code, this.reason, this.message, this.details);
  }
}

export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: StatusReason;
  details?: { name?: string; group?: string; kind?: string; uid?: string };
  code: number;
}

export function failureStatus(
  code: number,
  reason: StatusReason,
  message: string,
  details?: KubeStatus['details'],
): KubeStatus {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  };
}

const detailsOf = (kind: KindRef, name: string) => ({
  name,
  group: kind.group,
  kind: kind.plural,
});

export const notFound = (kind: KindRef, name: string) =>
  new KubeStatusError(
    404,
    'NotFound',
    `${qualifiedResource(kind)} "${name}" not found`,
    detailsOf(kind, name),
  );

export const alreadyExists = (kind: KindRef, name: string) =>
  new KubeStatusError(
    409,
    'AlreadyExists',
    `${qualifiedResource(kind)} "${name}" already exists`,
    detailsOf(kind, name),
  );

export const conflict = (kind: KindRef, name: string) =>
  new KubeStatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(kind)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    detailsOf(kind, name),
  );

export const invalid = (kind: KindRef, name: string, causes: string[]) =>
  new KubeStatusError(
    422,
    'Invalid',
    `${kind.group ? `${kind.kind}.${kind.group}` : kind.kind} "${name}" is invalid: ${causes.join(', ')}`,
    { name, group: kind.group, kind: kind.kind },
  );

export const badRequest = (message: string) => new KubeStatusError(400, 'BadRequest', message);

export const expired = (message = 'too old resource version') =>
  new KubeStatusError(410, 'Expired', message);
