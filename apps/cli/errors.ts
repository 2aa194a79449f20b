/** The exit codes of `platform`, as its help and the README state them. */
export const EXIT = { ok: 0, apiError: 1, usage: 2, notLoggedIn: 3 } as const;

/** A failure the CLI reports on stderr and answers with its exit code. */
export class CliError extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** Bad arguments: unknown command or option, a missing or malformed value. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(EXIT.usage, message);
  }
}

/** No stored session or token, or the API refused the one stored (401). */
export class NotLoggedInError extends CliError {
  constructor(message = 'not logged in: run `platform login`') {
    super(EXIT.notLoggedIn, message);
  }
}

/** The API answered with its error envelope; stderr shows the envelope's code and message. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly apiMessage: string,
  ) {
    super(EXIT.apiError, `${code}: ${apiMessage} (HTTP ${status})`);
  }
}
