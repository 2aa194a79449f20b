import { Param, ParseUUIDPipe } from '@nestjs/common';
import { CoreErrorCode, CoreException } from '../errors/core-exception.js';

/** A UUID path parameter; anything else names nothing and answers 404, never a 500 from SQL. */
export const IdParam = (name: string): ParameterDecorator =>
  Param(
    name,
    new ParseUUIDPipe({
      exceptionFactory: () => new CoreException(CoreErrorCode.NotFound, 'Resource not found'),
    }),
  );
