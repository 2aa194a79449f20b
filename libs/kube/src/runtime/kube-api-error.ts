/** A refusal of the Kubernetes API server (404, 409, 410, 422, ...), with the Status reason. */
export class KubeApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly reason?: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'KubeApiError';
  }

  /** Builds the error from a response body, which is a `Status` object when the server wrote one. */
  static fromResponse(status: number, method: string, path: string, body: string): KubeApiError {
    let parsed: { kind?: string; message?: string; reason?: string; details?: unknown } = {};
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      // Not JSON (a proxy's page, say): keep the text as the message.
    }
    const message =
      parsed.kind === 'Status' && parsed.message
        ? parsed.message
        : body.trim().slice(0, 500) || `HTTP ${status}`;
    return new KubeApiError(status, `${method} ${path}: ${message}`, parsed.reason, parsed.details);
  }
}

export function isKubeApiError(error: unknown, status?: number): error is KubeApiError {
  return error instanceof KubeApiError && (status === undefined || error.status === status);
}
