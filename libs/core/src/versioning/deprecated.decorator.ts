import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';

/** Marks a route deprecated (Versioning rule 6): it keeps serving until `sunset`, then answers 410. */
export interface DeprecationNotice {
  /** When the route was (or will be) deprecated. */
  deprecatedAt: Date;
  sunset: Date;
  /** The migration guide. */
  guide: string;
}

export const DEPRECATION = 'platform:deprecation';
export const UNVERSIONED = 'platform:unversioned';

export const Deprecated = (notice: {
  deprecatedAt: string | Date;
  sunset: string | Date;
  guide: string;
}): MethodDecorator & ClassDecorator =>
  SetMetadata(DEPRECATION, {
    deprecatedAt: new Date(notice.deprecatedAt),
    sunset: new Date(notice.sunset),
    guide: notice.guide,
  } satisfies DeprecationNotice);

/** The OpenAPI extension that marks an operation outside the versioned API. */
export const UNVERSIONED_EXTENSION = 'x-unversioned';

/** Routes outside the versioned API (probes, metrics, the OpenAPI document). */
export const Unversioned = (): MethodDecorator & ClassDecorator =>
  applyDecorators(SetMetadata(UNVERSIONED, true), ApiExtension(UNVERSIONED_EXTENSION, true));

export function deprecationHeaders(notice: DeprecationNotice): Record<string, string> {
  return {
    Deprecation: `@${Math.floor(notice.deprecatedAt.getTime() / 1000)}`,
    Sunset: notice.sunset.toUTCString(),
    Link: `<${notice.guide}>; rel="deprecation"`,
  };
}
