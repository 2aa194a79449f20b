/**
 * Base of every error a module raises on purpose. Each module declares its own subclass
 * with a code enum and an exhaustive code → status table, so a code's HTTP status is
 * decided once, next to the code.
 */
export interface AppExceptionOptions {
  retryable?: boolean;
  /** Extra machine-readable detail (for example the failing fields). */
  details?: unknown;
  headers?: Record<string, string>;
  /** The module that raised it; becomes `source_service` of the error envelope. */
  service?: string;
  cause?: unknown;
  /**
   * The `errors` list of the multi-error envelope (routes marked `@MultiErrorEnvelope()`);
   * omitted: one entry for the exception itself.
   */
  errors?: ErrorItem[];
}

/** One entry of the `errors` list of the multi-error envelope. */
export interface ErrorItem {
  code: string;
  message: string;
  status: number;
  /** Further detail of the entry, e.g. the index of the alert it concerns. */
  [detail: string]: unknown;
}

export class AppException extends Error {
  readonly retryable: boolean;
  readonly details?: unknown;
  readonly headers: Record<string, string>;
  readonly service?: string;
  readonly errors?: ErrorItem[];

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    options: AppExceptionOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.retryable = options.retryable ?? status >= 500;
    this.details = options.details;
    this.headers = options.headers ?? {};
    this.service = options.service;
    this.errors = options.errors;
  }
}

/** Builds a module's exception class from its code enum and exhaustive status table. */
export function defineException<Code extends string>(
  service: string,
  statuses: Record<Code, number>,
): new (
  code: Code,
  message: string,
  options?: Omit<AppExceptionOptions, 'service'>,
) => AppException & {
  code: Code;
} {
  return class extends AppException {
    declare readonly code: Code;
    constructor(code: Code, message: string, options: Omit<AppExceptionOptions, 'service'> = {}) {
      super(statuses[code], code, message, { ...options, service });
    }
  };
}
