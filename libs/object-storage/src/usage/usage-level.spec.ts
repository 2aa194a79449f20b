import { describe, expect, it } from '@jest/globals';
import { usageOf } from './usage-level.js';

const GIB = 1024 ** 3;
const of = (size: number, quota: { enabled: boolean; max_size?: number }) =>
  usageOf({ stats: { size }, user_quota: quota });

describe('usageOf', () => {
  it('answers the highest threshold reached of an enabled quota', () => {
    const quota = { enabled: true, max_size: 10 * GIB };
    expect(of(0, quota)).toEqual({ usedBytes: 0, quotaBytes: 10 * GIB, level: 0 });
    expect(of(8 * GIB - 1, quota)?.level).toBe(0);
    expect(of(8 * GIB, quota)?.level).toBe(80);
    expect(of(10 * GIB - 1, quota)?.level).toBe(80);
    expect(of(10 * GIB, quota)?.level).toBe(100);
    expect(of(12 * GIB, quota)?.level).toBe(100);
  });

  it('has no thresholds for a disabled, unlimited or zero quota', () => {
    expect(of(GIB, { enabled: false, max_size: 2 * GIB })).toBeNull();
    expect(of(GIB, { enabled: true, max_size: -1 })).toBeNull();
    expect(of(GIB, { enabled: true, max_size: 0 })).toBeNull();
    expect(usageOf({})).toBeNull();
  });

  it('reads size_kb when RGW leaves out the byte size', () => {
    expect(
      usageOf({ stats: { size_kb: 900 }, user_quota: { enabled: true, max_size: 1024 * 1000 } }),
    ).toMatchObject({ usedBytes: 921600, level: 80 });
  });
});
