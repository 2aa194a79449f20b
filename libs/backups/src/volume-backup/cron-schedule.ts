/**
 * The cron dialect the Kubernetes CronJob controller accepts (robfig/cron's standard parser):
 * five fields, month and weekday names, `*` or `?`, ranges, steps and lists, or one of the
 * `@` descriptors. Checked here because the CRD schema can only say "string", and a bad
 * schedule would otherwise surface as a CronJob the API server refuses.
 */
const DESCRIPTORS = new Set([
  '@yearly',
  '@annually',
  '@monthly',
  '@weekly',
  '@daily',
  '@midnight',
  '@hourly',
]);

interface FieldRule {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const FIELDS: readonly FieldRule[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS },
  { name: 'day of week', min: 0, max: 6, names: WEEKDAYS },
];

/** Why `schedule` is not a valid CronJob schedule, or undefined when it is. */
export function cronScheduleProblem(schedule: string): string | undefined {
  const trimmed = schedule.trim();
  if (trimmed === '') return 'the schedule is empty';
  if (/^(CRON_)?TZ=/.test(trimmed)) {
    return 'time zones cannot be set in the schedule';
  }
  if (trimmed.startsWith('@')) {
    if (DESCRIPTORS.has(trimmed.toLowerCase())) return undefined;
    const every = /^@every\s+(.+)$/i.exec(trimmed);
    if (every && /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(every[1])) return undefined;
    return `unknown descriptor "${trimmed}"`;
  }
  const fields = trimmed.split(/\s+/);
  if (fields.length !== FIELDS.length) {
    return `expected ${FIELDS.length} fields (minute hour day-of-month month day-of-week), got ${fields.length}`;
  }
  for (let i = 0; i < FIELDS.length; i++) {
    const problem = fieldProblem(fields[i], FIELDS[i]);
    if (problem) return `${FIELDS[i].name}: ${problem}`;
  }
  return undefined;
}

function fieldProblem(field: string, rule: FieldRule): string | undefined {
  for (const item of field.split(',')) {
    const problem = itemProblem(item, rule);
    if (problem) return problem;
  }
  return undefined;
}

function itemProblem(item: string, rule: FieldRule): string | undefined {
  const [range, step, ...rest] = item.split('/');
  if (rest.length > 0) return `"${item}" has more than one step`;
  if (step !== undefined && !/^\d+$/.test(step)) return `step "${step}" is not a number`;
  if (step !== undefined && Number(step) === 0) return 'a step must be at least 1';
  if (range === '*' || range === '?') return undefined;
  const bounds = range.split('-');
  if (bounds.length > 2) return `"${range}" is not a range`;
  const values: number[] = [];
  for (const bound of bounds) {
    const value = parseValue(bound, rule);
    if (value === undefined) return `"${bound}" is not a ${rule.name} value`;
    if (value < rule.min || value > rule.max) {
      return `${value} is outside ${rule.min}-${rule.max}`;
    }
    values.push(value);
  }
  if (values.length === 2 && values[0] > values[1]) {
    return `range "${range}" ends before it starts`;
  }
  return undefined;
}

function parseValue(text: string, rule: FieldRule): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  const index = rule.names?.indexOf(text.toLowerCase()) ?? -1;
  if (index < 0) return undefined;
  return rule.names === MONTHS ? index + 1 : index;
}
