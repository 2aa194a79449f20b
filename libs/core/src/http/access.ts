import { SetMetadata } from '@nestjs/common';

/**
 * Access declarations live on every route: `@Public()` here, `@Authenticated(...)` in the
 * identity module. A route with neither stops the API from starting.
 */
export const PUBLIC_ROUTE = 'platform:public';

export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(PUBLIC_ROUTE, true);
