/** What a soak run does, from the environment; the defaults are the documented run. */
export interface SoakSettings {
  /** Alerts per second, sent as payloads of `alertsPerPayload`. */
  rate: number;
  minutes: number;
  sockets: number;
  alertsPerPayload: number;
  /** The pool of alert fingerprints the payloads walk through in order. */
  fingerprints: number;
  /** Each fingerprint keeps its status this long, then may flip (a block). */
  flipSeconds: number;
  /** Share of blocks in which a fingerprint is resolved. */
  resolvedShare: number;
  /** After the load stops, how long to wait for the worker to finish what is due. */
  drainSeconds: number;
  /** LOG_LEVEL of the API and the worker; error and fatal lines are counted either way. */
  logLevel: string;
}

export const TARGET_ERRORS = 0;
/** Resident memory growth of each process from the end of minute 1 to the end, in %. */
export const TARGET_RSS_GROWTH_PERCENT = 10;

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}

export function soakSettings(): SoakSettings {
  const resolvedShare = Number(process.env.SOAK_RESOLVED_SHARE ?? 0.5);
  if (!(resolvedShare > 0 && resolvedShare < 1))
    throw new Error('SOAK_RESOLVED_SHARE must be between 0 and 1');
  const settings: SoakSettings = {
    rate: positive('SOAK_RATE', 1000),
    minutes: positive('SOAK_MINUTES', 10),
    sockets: Math.round(positive('SOAK_SOCKETS', 50)),
    alertsPerPayload: Math.round(positive('SOAK_ALERTS_PER_PAYLOAD', 100)),
    fingerprints: Math.round(positive('SOAK_FINGERPRINTS', 1000)),
    flipSeconds: positive('SOAK_FLIP_SECONDS', 30),
    resolvedShare,
    drainSeconds: positive('SOAK_DRAIN_SECONDS', 60),
    logLevel: process.env.SOAK_LOG_LEVEL ?? 'warn',
  };
  if (settings.fingerprints < settings.alertsPerPayload)
    throw new Error('SOAK_FINGERPRINTS must be at least SOAK_ALERTS_PER_PAYLOAD');
  return settings;
}
