/**
 * A duration as the status shows it: whole seconds in Go's notation ("0s", "45s", "1m30s",
 * "2h0m5s"); days count as hours ("26h0m0s") so the string stays unambiguous and sortable by eye.
 */
export function formatDuration(milliseconds: number): string {
  const total = Math.max(0, Math.floor(milliseconds / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}

/** The time between two instants given as date-time strings, or undefined when either is missing. */
export function durationBetween(start?: string, end?: string): string | undefined {
  if (!start || !end) return undefined;
  const from = Date.parse(start);
  const to = Date.parse(end);
  if (Number.isNaN(from) || Number.isNaN(to)) return undefined;
  return formatDuration(to - from);
}
