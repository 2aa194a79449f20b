/** What the phases share to turn times into printed figures with their targets. */

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const log = (line: string) => process.stderr.write(`  ${line}\n`);

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export const ms = (value: number) =>
  Number.isNaN(value) ? 'n/a' : `${Math.round(value).toLocaleString('en')} ms`;

export interface Spread {
  n: number;
  min: number;
  p50: number;
  p99: number;
  max: number;
}

export function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    min: sorted[0] ?? NaN,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? NaN,
  };
}

export const spreadText = (s: Spread) => `p50 ${ms(s.p50)}, p99 ${ms(s.p99)}, max ${ms(s.max)}`;

/** A phase's printed block: its lines, and whether each target was met. */
export class Block {
  private readonly lines: string[];
  private missed = 0;

  constructor(title: string) {
    this.lines = [title];
  }

  line(text: string): void {
    this.lines.push(`  ${text}`);
  }

  /** `met` is false when the figure misses or could not be taken (counts incomplete). */
  target(text: string, target: string, met: boolean): void {
    if (!met) this.missed += 1;
    this.lines.push(`  ${text} (target: ${target}) — ${met ? 'met' : 'not met'}`);
  }

  get targetsMissed(): number {
    return this.missed;
  }

  text(): string {
    return `${this.lines.join('\n')}\n`;
  }
}

/** A number from the environment, or the default. */
export function envNumber(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`${name} must be a number ≥ 0`);
  return parsed;
}
