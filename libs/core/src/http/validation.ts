import { ValidationError, ValidationPipe } from '@nestjs/common';
import { CoreErrorCode, CoreException } from '../errors/core-exception.js';

export interface FieldError {
  field: string;
  messages: string[];
}

function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = error.constraints ? [{ field, messages: Object.values(error.constraints) }] : [];
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/**
 * Validates every body, query and parameter DTO. Unknown properties are dropped rather than
 * refused (loosened validation stays compatible); failures answer 422 naming each field.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const fields = flatten(errors);
      const summary = fields.length
        ? fields.map((f) => f.messages.join(', ')).join('; ')
        : 'the request is malformed';
      return new CoreException(CoreErrorCode.ValidationFailed, `Validation failed: ${summary}`, {
        details: { fields },
      });
    },
  });
}
