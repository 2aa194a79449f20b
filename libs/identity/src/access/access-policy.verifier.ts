import { Injectable, OnApplicationBootstrap, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { PUBLIC_ROUTE } from '@platform/core';
import { ACCESS_POLICY, type AccessPolicy } from './authenticated.decorator.js';

export interface DeclaredRoute {
  controller: string;
  handler: string;
  method: RequestMethod;
  paths: string[];
  isPublic: boolean;
  policy: unknown;
  /** The handler and its controller, for reading further route metadata. */
  targets: [() => unknown, new (...args: never[]) => unknown];
}

/** Every route handler of the application with its access declaration. */
export function declaredRoutes(
  discovery: DiscoveryService,
  scanner: MetadataScanner,
  reflector: Reflector,
): DeclaredRoute[] {
  const routes: DeclaredRoute[] = [];
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype as (new (...args: never[]) => unknown) | undefined;
    if (!controller) continue;
    const prototype = controller.prototype as Record<string, unknown>;
    const base = reflector.get<string | string[]>(PATH_METADATA, controller) ?? '';
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[name] as () => unknown;
      const path = reflector.get<string | string[] | undefined>(PATH_METADATA, handler);
      if (path === undefined) continue;
      const join = (a: string, b: string) =>
        `/${[a, b]
          .map((p) => p.replace(/^\/|\/$/g, ''))
          .filter(Boolean)
          .join('/')}`;
      const bases = Array.isArray(base) ? base : [base];
      const paths = Array.isArray(path) ? path : [path];
      routes.push({
        controller: controller.name,
        handler: name,
        method: reflector.get<RequestMethod>(METHOD_METADATA, handler),
        paths: bases.flatMap((b) => paths.map((p) => join(b, p))),
        isPublic: Boolean(
          reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [handler, controller]),
        ),
        policy: reflector.getAllAndOverride<unknown>(ACCESS_POLICY, [handler, controller]),
        targets: [handler, controller],
      });
    }
  }
  return routes;
}

/**
 * An account-wide route has no permission for a static token's scopes to narrow, so it must
 * name the scope a token needs, or take login sessions only.
 */
function namesTokenScope(policy: AccessPolicy): boolean {
  if (policy.scope !== 'account' || policy.interactiveOnly) return true;
  return policy.scopeResource !== undefined && policy.scopeLevel !== undefined;
}

/**
 * Refuses to start while any route declares neither @Public() nor @Authenticated(...), or is
 * account-wide without saying what a static token needs there.
 */
@Injectable()
export class AccessPolicyVerifier implements OnApplicationBootstrap {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onApplicationBootstrap(): void {
    const routes = declaredRoutes(this.discovery, this.scanner, this.reflector);
    const undeclared = routes.filter((r) => !r.isPublic && !r.policy);
    if (undeclared.length > 0) {
      throw new Error(
        `Routes without an access declaration (@Public or @Authenticated): ${undeclared.map((r) => `${r.controller}.${r.handler}`).join(', ')}`,
      );
    }
    const unscoped = routes.filter((r) => r.policy && !namesTokenScope(r.policy as AccessPolicy));
    if (unscoped.length > 0) {
      throw new Error(
        `Account-wide routes without a token scope (scopeResource and scopeLevel) or interactiveOnly: ${unscoped.map((r) => `${r.controller}.${r.handler}`).join(', ')}`,
      );
    }
  }
}
