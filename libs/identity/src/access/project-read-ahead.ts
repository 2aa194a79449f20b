import { type ExecutionContext, Injectable } from '@nestjs/common';
import type { AuthenticatedRequest } from './principal.js';

/** Starts a read about the path's project; its result stays on the request. */
export type ProjectRead = (
  projectId: string,
  context: ExecutionContext,
  request: AuthenticatedRequest,
) => void;

/**
 * Reads that guards after the AccessGuard need about the project a route names, started by
 * the AccessGuard while it authenticates the caller, so that they cost no round trip of their
 * own on the way to the handler. A reader keeps its pending result on the request, catches its
 * failure, and looks at it only once the AccessGuard has let the caller through: a caller who
 * fails authentication learns nothing from it.
 */
@Injectable()
export class ProjectReadAhead {
  private readonly reads: ProjectRead[] = [];

  register(read: ProjectRead): void {
    this.reads.push(read);
  }

  start(projectId: string, context: ExecutionContext, request: AuthenticatedRequest): void {
    for (const read of this.reads) read(projectId, context, request);
  }
}
