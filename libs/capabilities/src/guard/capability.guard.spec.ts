import { describe, expect, it } from '@jest/globals';
import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type AuthenticatedRequest, ProjectReadAhead } from '@platform/identity';
import type { CapabilitiesService } from '../catalog/capabilities.service.js';
import type { KindSet } from '../catalog/kinds.js';
import { CapabilityGuard, CapabilityReadAhead } from './capability.guard.js';
import { RequiresCapability } from './requires-capability.decorator.js';

class AlertsController {
  @RequiresCapability('alerts')
  ingest(): void {}

  @RequiresCapability('dns')
  records(): void {}

  open(): void {}
}

const PROJECT = '00000000-0000-4000-8000-000000000001';
const OTHER_PROJECT = '00000000-0000-4000-8000-000000000002';

/** Answers from a table of project/feature availabilities, counting reads. */
function fakeCapabilities(table: Record<string, KindSet>) {
  const reads: string[] = [];
  const service = {
    available: async (projectId: string, feature: string) => {
      reads.push(`${projectId}/${feature}`);
      if (!(`${projectId}/${feature}` in table)) throw new Error('unknown project');
      return table[`${projectId}/${feature}`];
    },
  } as unknown as CapabilitiesService;
  return { service, reads };
}

function contextOf(handler: keyof AlertsController, request: object): ExecutionContext {
  return {
    getHandler: () => AlertsController.prototype[handler],
    getClass: () => AlertsController,
    getType: () => 'http',
    switchToHttp: () => ({ getRequest: () => request }),
  } as unknown as ExecutionContext;
}

function setUp(table: Record<string, KindSet>) {
  const reflector = new Reflector();
  const capabilities = fakeCapabilities(table);
  const readAhead = new ProjectReadAhead();
  new CapabilityReadAhead(reflector, capabilities.service, readAhead).onModuleInit();
  const guard = new CapabilityGuard(reflector, capabilities.service);
  return { readAhead, guard, reads: capabilities.reads };
}

/** The AccessGuard's part: start the reads, then (once the caller passed) set the principal. */
function authenticate(
  readAhead: ProjectReadAhead,
  context: ExecutionContext,
  pathProject: string,
  principalProject = pathProject,
): AuthenticatedRequest {
  const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
  readAhead.start(pathProject, context, request);
  request.principal = { projectId: principalProject } as AuthenticatedRequest['principal'];
  return request;
}

describe('CapabilityGuard', () => {
  it('answers from the read started during authentication, without a second read', async () => {
    const { readAhead, guard, reads } = setUp({ [`${PROJECT}/alerts`]: null });
    const context = contextOf('ingest', {});
    authenticate(readAhead, context, PROJECT);
    await expect(guard.canActivate(context)).resolves.toBe(true);
    expect(reads).toEqual([`${PROJECT}/alerts`]);
  });

  it('refuses a project without the feature with the capability error', async () => {
    const { readAhead, guard } = setUp({ [`${PROJECT}/alerts`]: [] });
    const context = contextOf('ingest', {});
    authenticate(readAhead, context, PROJECT);
    await expect(guard.canActivate(context)).rejects.toMatchObject({
      code: 'alerts_capability_not_enabled',
    });
  });

  it('reads afresh when the read ahead was of another project', async () => {
    const { readAhead, guard, reads } = setUp({
      [`${PROJECT}/alerts`]: [],
      [`${OTHER_PROJECT}/alerts`]: null,
    });
    const context = contextOf('ingest', {});
    authenticate(readAhead, context, PROJECT, OTHER_PROJECT);
    await expect(guard.canActivate(context)).resolves.toBe(true);
    expect(reads).toEqual([`${PROJECT}/alerts`, `${OTHER_PROJECT}/alerts`]);
  });

  it('reads the feature of the route, and nothing for a route without a requirement', async () => {
    const { readAhead, reads } = setUp({ [`${PROJECT}/dns`]: null });
    authenticate(readAhead, contextOf('records', {}), PROJECT);
    authenticate(readAhead, contextOf('open', {}), PROJECT);
    expect(reads).toEqual([`${PROJECT}/dns`]);
  });

  it('drops a failed read that nobody awaits (the caller failed authentication)', async () => {
    const { readAhead, reads } = setUp({});
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      readAhead.start(PROJECT, contextOf('ingest', {}), {} as AuthenticatedRequest);
      await new Promise((resolve) => setTimeout(resolve, 10));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(reads).toEqual([`${PROJECT}/alerts`]);
    expect(unhandled).toEqual([]);
  });
});
