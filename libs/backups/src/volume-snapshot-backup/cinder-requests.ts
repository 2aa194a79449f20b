import { OpenStackHttpError } from '@platform/openstack-client';
import { MANAGED_BY } from '../render/pod.js';
import type { RunState } from './run-state.js';
import { CinderMetadata } from './snapshot-backup-spec.js';

/** Cinder refusing a request (4xx but authentication): the run cannot go on. */
export const refusedBy = (error: unknown): error is OpenStackHttpError =>
  error instanceof OpenStackHttpError &&
  error.status >= 400 &&
  error.status < 500 &&
  error.status !== 401 &&
  error.status !== 403;

export function cinderMetadata(run: RunState): Record<string, string> {
  return {
    [CinderMetadata.managedBy]: MANAGED_BY,
    [CinderMetadata.source]: run.source,
    [CinderMetadata.owner]: `${run.namespace}/${run.name}`,
    [CinderMetadata.ownerUid]: run.uid,
  };
}
