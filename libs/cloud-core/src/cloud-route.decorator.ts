import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import { type FeatureKey, RequiresCapability } from '@platform/capabilities';
import { ApiErrors, type ErrorDoc } from '@platform/core';
import {
  Authenticated,
  type Category,
  CSRF_ERROR,
  type Level,
  PERMISSION_ROUTE_ERRORS,
} from '@platform/identity';
import { UPSTREAM_CONFLICT, UPSTREAM_ERRORS } from './cloud-errors.openapi.js';

export interface CloudRouteOptions {
  /** Axis A: the membership's permission category and level. */
  permission: `${Category}:${Level}`;
  /** Axis B, on creates: the kind of the feature the project must have Available. */
  capability?: { feature: FeatureKey; kind: string };
  /**
   * Only platform admins, whatever the membership (an org admin or a member's token included):
   * for changes the platform operator keeps, such as object-storage quotas and locks.
   */
  platformAdmin?: boolean;
  /**
   * The route's own failures beside the shared ones (every change documents the upstream's 409,
   * every route the upstream failures of rule 4).
   */
  errors?: readonly ErrorDoc[];
}

const PROJECT_ERRORS: readonly ErrorDoc[] = [
  [
    404,
    'not_found',
    'the project is unknown or not visible to the caller, or the item is not found upstream',
  ],
  [
    422,
    'validation_failed',
    'no `project_id` (query, or body of a create), or a body field is invalid; `details.fields` names each failing field and nothing is sent upstream',
  ],
];

const PLATFORM_ADMIN_ERROR: ErrorDoc = [
  403,
  'forbidden',
  'the caller is not a platform admin (org admins and their tokens included)',
];

/**
 * A project-scoped cloud route (4-cloud-resources.md, rules 1 and 2): the project comes from
 * the `project_id` query parameter (or a create's body), Axis A checks the permission, Axis B
 * the feature kind on creates, and the OpenAPI document lists the shared failures with the
 * upstream ones of rule 4.
 */
export function CloudRoute(options: CloudRouteOptions) {
  const [, level] = options.permission.split(':') as [Category, Level];
  const capability = options.capability;
  return applyDecorators(
    Authenticated({
      scope: 'project',
      projectIn: 'query',
      permission: options.permission,
      ...(options.platformAdmin ? { platformAdmin: true } : {}),
    }),
    ApiQuery({
      name: 'project_id',
      required: level !== 'create',
      schema: { type: 'string', format: 'uuid' },
      description:
        level === 'create'
          ? "the project; here or as the body's `project_id`"
          : 'the project whose resources these are',
    }),
    ...(capability ? [RequiresCapability(capability.feature, capability.kind)] : []),
    ApiErrors(
      ...PERMISSION_ROUTE_ERRORS,
      ...(level === 'read' ? [] : [CSRF_ERROR, UPSTREAM_CONFLICT]),
      ...(options.platformAdmin ? [PLATFORM_ADMIN_ERROR] : []),
      ...(capability
        ? [
            [
              403,
              `${capability.feature}_capability_not_enabled`,
              `the project does not have the ${capability.feature} kind \`${capability.kind}\` Available`,
            ] as const,
          ]
        : []),
      ...PROJECT_ERRORS,
      ...UPSTREAM_ERRORS,
      ...(options.errors ?? []),
    ),
  );
}
