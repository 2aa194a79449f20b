import type { RgwUserInfo } from '../client/rgw-admin-ops.js';

/** The quota thresholds that notify, in percent, highest first. */
export const USAGE_THRESHOLDS = [100, 80] as const;
export type UsageLevel = 0 | (typeof USAGE_THRESHOLDS)[number];

export interface Usage {
  usedBytes: number;
  quotaBytes: number;
  level: UsageLevel;
}

/**
 * Where a user's usage stands against its enabled quota: the highest threshold reached, or 0.
 * A quota that is disabled, unlimited (negative) or zero has no thresholds: null.
 */
export function usageOf(info: Pick<RgwUserInfo, 'stats' | 'user_quota'>): Usage | null {
  const quota = info.user_quota;
  const quotaBytes = quota?.max_size ?? -1;
  if (!quota?.enabled || quotaBytes <= 0) return null;
  const usedBytes = info.stats?.size ?? (info.stats?.size_kb ?? 0) * 1024;
  const level = USAGE_THRESHOLDS.find((t) => usedBytes * 100 >= quotaBytes * t) ?? 0;
  return { usedBytes, quotaBytes, level };
}
