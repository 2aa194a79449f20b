import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { MetricsService } from '../metrics/metrics.service.js';

/** The services a process cannot work without. */
export type DependencyName = 'database' | 'redis';

const DESCRIPTIONS: Record<DependencyName, { label: string; variable: string }> = {
  database: { label: 'PostgreSQL', variable: 'DATABASE_URL' },
  redis: { label: 'Redis', variable: 'REDIS_URL' },
};

/** How often a dependency known to be down is probed until it answers again. */
const RECOVERY_PROBE_MS = 1000;

/** Thrown (or mapped onto) when work needs a dependency that does not answer. */
export class DependencyUnavailableError extends Error {
  constructor(
    readonly dependency: DependencyName,
    cause?: unknown,
  ) {
    super(`${DESCRIPTIONS[dependency].label} is unavailable`, { cause });
    this.name = 'DependencyUnavailableError';
  }
}

/** A URL as it may appear in a log: without its password. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(unparsable URL)';
  }
}

type Listener = (name: DependencyName, up: boolean) => void;
type BackListener = (name: DependencyName) => void;

interface State {
  up: boolean;
  downSince: number | null;
  probe: (() => Promise<void>) | null;
  timer: NodeJS.Timeout | null;
  confirming: Promise<void> | null;
  /** The server run last reported (Redis' run_id); null until one is. */
  serverRun: string | null;
  /** Whether back-listeners heard of the end of an outage since `serverRun` was reported. */
  backSinceServerRun: boolean;
}

/**
 * What this process knows about PostgreSQL and Redis being reachable. Every failed connection,
 * query or command that looks like "unreachable" reports here, and the dependency's probe (a
 * trivial round trip on a connection of its own, so a saturated pool is not taken for an
 * outage) confirms it. The first confirmed failure of an outage logs one JSON line naming the
 * variable (`DATABASE_URL`, `REDIS_URL`); later ones are silent until the dependency answers
 * again, which logs once more. While a dependency is down its probe runs every second, so the
 * process notices the end of an outage without waiting for traffic. Listeners (the worker's
 * job runners) pause and resume with it. A server restart can be too short for any of this to
 * notice (the client reconnects before a connection is refused), so clients also report which
 * server run answers them: a new run is logged once and tells back-listeners, as the end of an
 * outage does, that what was kept there may be gone.
 */
@Injectable()
export class Dependencies implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('dependencies');
  private readonly states = new Map<DependencyName, State>();
  private readonly listeners: Listener[] = [];
  private readonly backListeners: BackListener[] = [];
  private closed = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {}

  private state(name: DependencyName): State {
    let state = this.states.get(name);
    if (!state) {
      state = {
        up: true,
        downSince: null,
        probe: null,
        timer: null,
        confirming: null,
        serverRun: null,
        backSinceServerRun: false,
      };
      this.states.set(name, state);
    }
    return state;
  }

  /** The cheapest round trip that proves `name` answers; used while it is down. */
  setProbe(name: DependencyName, probe: () => Promise<void>): void {
    this.state(name).probe = probe;
  }

  onChange(listener: Listener): void {
    this.listeners.push(listener);
  }

  /**
   * `listener` hears when a dependency is back and may have lost what was written to it: at the
   * end of an outage, and when a different server run answers without an outage having been
   * confirmed (a quick restart).
   */
  onBack(listener: BackListener): void {
    this.backListeners.push(listener);
  }

  isUp(name: DependencyName): boolean {
    return this.state(name).up;
  }

  /** Throws DependencyUnavailableError at once while `name` is known to be down. */
  assertUp(name: DependencyName): void {
    if (!this.state(name).up) throw new DependencyUnavailableError(name);
  }

  /** Something failed as if `name` were unreachable: confirm with its probe, then mark it down. */
  reportFailure(name: DependencyName, error: unknown): void {
    const state = this.state(name);
    if (!state.up || this.closed || state.confirming) return;
    if (!state.probe) return this.markDown(name, error);
    state.confirming = state.probe().then(
      () => undefined,
      (probeError: unknown) => this.markDown(name, probeError),
    );
    void state.confirming.finally(() => {
      state.confirming = null;
    });
  }

  private markDown(name: DependencyName, error: unknown): void {
    const state = this.state(name);
    if (!state.up || this.closed) return;
    state.up = false;
    state.downSince = Date.now();
    const { label, variable } = DESCRIPTIONS[name];
    const url = name === 'database' ? this.config.databaseUrl : this.config.redisUrl;
    const reason = error instanceof Error ? error.message : String(error);
    this.logger.error({
      message: `${label} is unreachable at ${variable}=${redactUrl(url)}: ${reason || 'no answer'}; retrying until it answers`,
      dependency: name,
      variable,
      error: reason,
    });
    this.gauge(name, 0);
    this.scheduleProbe(name);
    for (const listener of this.listeners) listener(name, false);
  }

  reportSuccess(name: DependencyName): void {
    const state = this.state(name);
    if (state.up) return;
    const downMs = Date.now() - (state.downSince ?? Date.now());
    state.up = true;
    state.downSince = null;
    if (state.timer) clearTimeout(state.timer);
    state.timer = null;
    const { label, variable } = DESCRIPTIONS[name];
    this.logger.log({
      message: `${label} answers again at ${variable} after ${Math.round(downMs / 100) / 10} s`,
      dependency: name,
      variable,
    });
    this.gauge(name, 1);
    for (const listener of this.listeners) listener(name, true);
    state.backSinceServerRun = true;
    for (const listener of this.backListeners) listener(name);
  }

  /**
   * The server behind `name` answered as run `runId` (Redis' run_id, new at each start). The
   * first report is recorded; a different one means the server restarted, perhaps empty: logged
   * once, and back-listeners hear of it unless the end of an outage already told them.
   */
  reportServerRun(name: DependencyName, runId: string): void {
    if (this.closed) return;
    // It answered: an outage not yet seen to end is over (and back-listeners told so).
    this.reportSuccess(name);
    const state = this.state(name);
    const previous = state.serverRun;
    const toldAlready = state.backSinceServerRun;
    state.serverRun = runId;
    state.backSinceServerRun = false;
    if (previous === null || previous === runId) return;
    const { label } = DESCRIPTIONS[name];
    this.logger.warn({
      message: toldAlready
        ? `${label} restarted (run_id ${previous} → ${runId}) during the outage; start-up tasks re-ran when it answered`
        : `${label} restarted (run_id ${previous} → ${runId}): re-running start-up tasks`,
      dependency: name,
      previousRunId: previous,
      runId,
    });
    if (!toldAlready) for (const listener of this.backListeners) listener(name);
  }

  /** Runs the probe of `name` once and records what it showed; throws what it threw. */
  async check(name: DependencyName): Promise<void> {
    const probe = this.state(name).probe;
    if (!probe) return;
    try {
      await probe();
    } catch (error) {
      this.markDown(name, error);
      throw error;
    }
    this.reportSuccess(name);
  }

  /** A process started while a dependency is down says so at once, not at the first request. */
  onApplicationBootstrap(): void {
    for (const name of this.states.keys()) void this.check(name).catch(() => undefined);
  }

  onApplicationShutdown(): void {
    this.closed = true;
    for (const state of this.states.values()) if (state.timer) clearTimeout(state.timer);
  }

  private scheduleProbe(name: DependencyName): void {
    const state = this.state(name);
    if (!state.probe || state.timer || this.closed) return;
    state.timer = setTimeout(() => {
      state.timer = null;
      if (state.up || this.closed) return;
      state.probe!().then(
        () => this.reportSuccess(name),
        () => this.scheduleProbe(name),
      );
    }, RECOVERY_PROBE_MS);
    state.timer.unref();
  }

  private gauge(name: DependencyName, value: number): void {
    this.metrics
      .gauge('dependency_up', 'Whether PostgreSQL and Redis answer (1) or not (0)', [
        'dependency',
      ] as const)
      .set({ dependency: name }, value);
  }
}
