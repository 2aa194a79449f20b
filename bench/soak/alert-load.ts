import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import type { SoakSettings } from './settings.js';

/** A request whose sending started this much after its scheduled instant counts as late. */
const LATE_MS = 10;
const SEVERITIES = ['critical', 'high', 'warning', 'info'];

/** A stable pseudo-random number in [0, 1) per (a, b). */
function unitHash(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x27d4eb2f, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  h ^= h >>> 12;
  return (h >>> 0) / 2 ** 32;
}

/**
 * The status of each fingerprint over time. Fingerprint i lives in blocks of `flipSeconds`,
 * shifted by a phase of its own so that flips are spread evenly over time; in each block it
 * is resolved with probability `resolvedShare`, else firing. Block 0 is resolved for all, so
 * the run starts quiet and first firings arrive spread over the first block instead of at once.
 */
export class AlertSchedule {
  constructor(private readonly settings: SoakSettings) {}

  private phase(i: number): number {
    return unitHash(i, 0x50a4) * this.settings.flipSeconds;
  }

  private block(i: number, elapsedS: number): number {
    return Math.floor((elapsedS + this.phase(i)) / this.settings.flipSeconds);
  }

  private firingIn(i: number, block: number): boolean {
    return block > 0 && unitHash(i, block) >= this.settings.resolvedShare;
  }

  /** Seconds after the start at which block `block` of fingerprint i begins. */
  private blockStart(i: number, block: number): number {
    return block * this.settings.flipSeconds - this.phase(i);
  }

  /**
   * Fingerprint i at `elapsedS` seconds: firing since the start of its episode, or resolved
   * since the block began (as Alertmanager keeps `startsAt` for a whole firing episode).
   */
  status(i: number, elapsedS: number): { firing: boolean; sinceS: number } {
    let block = this.block(i, elapsedS);
    const firing = this.firingIn(i, block);
    if (firing) while (this.firingIn(i, block - 1)) block -= 1;
    return { firing, sinceS: Math.max(0, this.blockStart(i, block)) };
  }
}

/** What the load saw within one window (a minute). */
export interface LoadWindow {
  requests: number;
  alerts: number;
  late: number;
  maxSendLagMs: number;
  answered: number;
  /** Failed requests and refused alerts, by code (HTTP status, network error or alert code). */
  errors: Map<string, number>;
  /** From each request's scheduled instant until its answer was read, in ms. */
  latencies: number[];
}

function emptyWindow(): LoadWindow {
  return {
    requests: 0,
    alerts: 0,
    late: 0,
    maxSendLagMs: 0,
    answered: 0,
    errors: new Map(),
    latencies: [],
  };
}

/**
 * Alertmanager webhooks at a fixed rate on an open-loop schedule: request k is due at
 * start + k × interval and is sent then, however many earlier ones are still unanswered, so
 * a slow answer never slows the load down (latency runs from the scheduled instant, and a
 * send that starts late is counted). Each payload carries the next `alertsPerPayload`
 * fingerprints of the pool, so every fingerprint is redelivered at a steady cadence and its
 * status follows the `AlertSchedule`.
 */
export class AlertLoad {
  private readonly http: Pool;
  private readonly path: string;
  private readonly headers: Record<string, string>;
  private readonly schedule: AlertSchedule;
  private readonly intervalMs: number;
  private readonly total: number;
  private window = emptyWindow();
  private next = 0;
  private inFlight = 0;
  private startedAt = 0;
  private startedWall = 0;
  private stopped = false;
  private finished!: () => void;
  readonly done: Promise<void> = new Promise((resolve) => (this.finished = resolve));

  constructor(
    private readonly settings: SoakSettings,
    url: string,
    projectId: string,
    token: string,
  ) {
    this.http = new Pool(url, { connections: 512, pipelining: 1, headersTimeout: 30_000 });
    this.path = `/projects/${projectId}/alerts`;
    this.headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    this.schedule = new AlertSchedule(settings);
    this.intervalMs = (1000 * settings.alertsPerPayload) / settings.rate;
    this.total = Math.round((settings.minutes * 60 * 1000) / this.intervalMs);
  }

  start(): void {
    this.startedAt = performance.now();
    this.startedWall = Date.now();
    this.tick();
  }

  /** What happened since the last call. */
  takeWindow(): LoadWindow {
    const window = this.window;
    this.window = emptyWindow();
    window.latencies.sort((a, b) => a - b);
    return window;
  }

  /** Sends nothing more; resolves once the requests under way are answered. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.settle();
    await this.done;
    await this.http.close();
  }

  private tick = (): void => {
    const now = performance.now();
    while (!this.stopped && this.next < this.total && this.dueAt(this.next) <= now) {
      this.send(this.next, now - this.dueAt(this.next));
      this.next += 1;
    }
    if (!this.stopped && this.next < this.total) {
      setTimeout(this.tick, Math.max(0, this.dueAt(this.next) - performance.now()));
    } else {
      this.stopped = true;
      this.settle();
    }
  };

  private dueAt(k: number): number {
    return this.startedAt + k * this.intervalMs;
  }

  private send(k: number, lagMs: number): void {
    const w = this.window;
    w.requests += 1;
    w.alerts += this.settings.alertsPerPayload;
    if (lagMs > LATE_MS) w.late += 1;
    w.maxSendLagMs = Math.max(w.maxSendLagMs, lagMs);
    this.inFlight += 1;
    const due = this.dueAt(k);
    this.http
      .request({ method: 'POST', path: this.path, headers: this.headers, body: this.payload(k) })
      .then(async (res) => {
        const text = await res.body.text();
        if (res.statusCode !== 200) return this.error(`HTTP ${res.statusCode}`);
        const refused = (JSON.parse(text) as { data?: { errors?: Array<{ code: string }> } }).data
          ?.errors;
        for (const { code } of refused ?? []) this.error(`alert ${code}`);
      })
      .catch((error: Error & { code?: string }) => this.error(error.code ?? error.message))
      .finally(() => {
        this.window.answered += 1;
        this.window.latencies.push(performance.now() - due);
        this.inFlight -= 1;
        this.settle();
      });
  }

  private error(code: string): void {
    this.window.errors.set(code, (this.window.errors.get(code) ?? 0) + 1);
  }

  private settle(): void {
    if (this.stopped && this.inFlight === 0) this.finished();
  }

  private payload(k: number): string {
    const { alertsPerPayload, fingerprints } = this.settings;
    const elapsedS = (k * this.intervalMs) / 1000;
    const alerts = [];
    for (let n = 0; n < alertsPerPayload; n += 1) {
      const i = (k * alertsPerPayload + n) % fingerprints;
      const { firing, sinceS } = this.schedule.status(i, elapsedS);
      const since = new Date(this.startedWall + sinceS * 1000).toISOString();
      alerts.push({
        status: firing ? 'firing' : 'resolved',
        labels: {
          alertname: `SoakAlert${i % 25}`,
          severity: SEVERITIES[i % SEVERITIES.length],
          instance: `node-${i}.soak.internal:9100`,
          job: 'node',
        },
        annotations: { summary: `node-${i} is degraded` },
        startsAt: firing ? since : new Date(this.startedWall - 3_600_000).toISOString(),
        endsAt: firing ? '0001-01-01T00:00:00Z' : since,
        generatorURL: `http://prometheus:9090/graph?g0.expr=up%7Binstance%3D%22node-${i}%22%7D`,
        fingerprint: `soak-${i.toString(16).padStart(6, '0')}`,
      });
    }
    return JSON.stringify({
      version: '4',
      groupKey: '{}:{job="node"}',
      status: 'firing',
      receiver: 'platform',
      groupLabels: { job: 'node' },
      commonLabels: { job: 'node' },
      externalURL: 'http://alertmanager:9093',
      alerts,
    });
  }
}
