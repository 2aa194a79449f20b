import { applyDecorators } from '@nestjs/common';
import { UPSTREAM_CONFLICT, UPSTREAM_ERRORS } from '@platform/cloud-core';
import { ApiErrors, type ErrorDoc } from '@platform/core';
import {
  Authenticated,
  CSRF_ERROR,
  type Level,
  ORGANIZATION_ACCESS_ERRORS,
} from '@platform/identity';

/**
 * An organization-scoped route of the apps cluster (4-cloud-resources.md, rules 1 and 2): the
 * organization as Authentication resolves it (`organization_id`, the token's, the only
 * membership), Axis A on `workspaces`, and the upstream failures of rule 4.
 */
export function WorkspaceRoute(level: Level, errors: readonly ErrorDoc[] = []) {
  return applyDecorators(
    Authenticated({ scope: 'organization', permission: `workspaces:${level}` }),
    ApiErrors(
      ...ORGANIZATION_ACCESS_ERRORS,
      ...(level === 'read' ? [] : [CSRF_ERROR, UPSTREAM_CONFLICT]),
      ...UPSTREAM_ERRORS,
      ...errors,
    ),
  );
}
