/** How long to poll, how often, and what the failure message names. */
export interface EventuallyOptions {
  /** Default 20 s: jobs, sockets and SMTP run on real time, not on the fake clock. */
  timeoutMs?: number;
  /** Default 25 ms. */
  intervalMs?: number;
  /** Named in the timeout's message, e.g. 'the page to be sent'. */
  what?: string;
}

type Options = EventuallyOptions | string;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `attempt` until it answers `{done: true}` or the time is up; then throws. */
async function poll<T>(
  attempt: () => Promise<{ done: true; value: T } | { done: false; last: unknown }>,
  options: Options,
): Promise<T> {
  const {
    timeoutMs = 20_000,
    intervalMs = 25,
    what = 'the condition',
  } = typeof options === 'string' ? { what: options } : options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await attempt();
    if (result.done) return result.value;
    if (Date.now() > deadline) {
      const last =
        result.last instanceof Error
          ? result.last.message
          : `last answer: ${JSON.stringify(result.last)}`;
      throw new Error(`${what} not reached within ${timeoutMs} ms (${last})`, {
        cause: result.last,
      });
    }
    await sleep(intervalMs);
  }
}

/**
 * Polls `probe` until it answers something (not undefined, null or false) without throwing, and
 * answers that. With `until`, polls until the answer satisfies it instead. The one way tests wait
 * for what happens on real time (jobs, deliveries, sockets, other processes).
 */
export function eventually<T>(
  probe: () => T | Promise<T>,
  options?: Options,
): Promise<Exclude<T, undefined | null | false>>;
export function eventually<T>(
  probe: () => T | Promise<T>,
  until: (value: T) => boolean,
  options?: Options,
): Promise<T>;
export function eventually<T>(
  probe: () => T | Promise<T>,
  untilOrOptions?: ((value: T) => boolean) | Options,
  options: Options = {},
): Promise<T> {
  const until =
    typeof untilOrOptions === 'function'
      ? untilOrOptions
      : (value: T) => value !== undefined && value !== null && value !== false;
  const settings = typeof untilOrOptions === 'function' ? options : (untilOrOptions ?? {});
  return poll(async () => {
    try {
      const value = await probe();
      return until(value) ? { done: true, value } : { done: false, last: value };
    } catch (error) {
      return { done: false, last: error };
    }
  }, settings);
}

/**
 * Retries `assertion` (a function of `expect`s) until it passes, and answers what it answers; the
 * last failure is in the error when the time is up.
 */
export function expectEventually<T>(
  assertion: () => T | Promise<T>,
  options: Options = {},
): Promise<T> {
  return poll(async () => {
    try {
      return { done: true, value: await assertion() };
    } catch (error) {
      return { done: false, last: error };
    }
  }, options);
}
