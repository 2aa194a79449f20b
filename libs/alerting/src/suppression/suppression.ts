import { compileMatchers, type Labels, type Matcher } from '../matchers/matchers.js';

/** Why an alert notifies nobody at a moment: a silence of it, or a maintenance window. */
export type Suppression =
  { kind: 'silenced'; silenceId: string } | { kind: 'maintenance'; maintenanceWindowId: string };

export interface ActiveWindow {
  id: string;
  matchers: readonly Matcher[];
}

/**
 * The suppressions of `alerts`, given the active silences (alert id → silence id) and the
 * project's active maintenance windows in order of preference. A silence wins over a window
 * (it names the alert itself); among windows the first whose matchers all pass wins, and a
 * window without matchers covers every alert. Alerts that are not suppressed are absent.
 */
export function decideSuppressions(
  alerts: ReadonlyArray<{ id: string; labels: Labels }>,
  silences: ReadonlyMap<string, string>,
  windows: readonly ActiveWindow[],
): Map<string, Suppression> {
  const compiled = windows.flatMap((window) => {
    try {
      return [{ id: window.id, matches: compileMatchers(window.matchers) }];
    } catch {
      // Matchers are validated when written; one the engine no longer accepts suppresses nothing.
      return [];
    }
  });
  const result = new Map<string, Suppression>();
  for (const alert of alerts) {
    const silenceId = silences.get(alert.id);
    if (silenceId !== undefined) {
      result.set(alert.id, { kind: 'silenced', silenceId });
      continue;
    }
    const window = compiled.find((w) => w.matches(alert.labels));
    if (window) result.set(alert.id, { kind: 'maintenance', maintenanceWindowId: window.id });
  }
  return result;
}

/** Whether `[startsAt, endsAt)` contains `at`. */
export function isActive(period: { starts_at: Date; ends_at: Date }, at: Date): boolean {
  return period.starts_at.getTime() <= at.getTime() && at.getTime() < period.ends_at.getTime();
}
