import { describe, expect, it } from '@jest/globals';
import {
  chooseVersion,
  compareVersions,
  resolveVersion,
  upgradeProblem,
} from './version-resolution.js';

describe('Version resolution', () => {
  it('resolves a major to its newest known patch and chart', () => {
    expect(resolveVersion('29')).toEqual({
      requestedVersion: '29',
      resolvedVersion: '29.0.16',
      chartVersion: '5.5.6',
      resolvedBy: 'builtin',
    });
    expect(resolveVersion('31')?.resolvedVersion).toBe('31.0.9');
  });

  it('keeps an exact version of a known major, and completes a minor', () => {
    expect(resolveVersion('30.0.2')).toMatchObject({
      resolvedVersion: '30.0.2',
      chartVersion: '6.6.10',
    });
    expect(resolveVersion('30.0')?.resolvedVersion).toBe('30.0.17');
    expect(resolveVersion('30.1')?.resolvedVersion).toBe('30.1.0');
  });

  it('knows no other major', () => {
    expect(resolveVersion('27')).toBeUndefined();
    expect(resolveVersion('99.0.1')).toBeUndefined();
  });

  it('compares numerically', () => {
    expect(compareVersions('29.0.10', '29.0.9')).toBeGreaterThan(0);
    expect(compareVersions('29.0.16', '30.0.0')).toBeLessThan(0);
    expect(compareVersions('30.0.0', '30')).toBe(0);
  });

  it('allows the same major and the next one, refuses a skip and a downgrade', () => {
    expect(upgradeProblem('29.0.16', '29.0.16')).toBeUndefined();
    expect(upgradeProblem('29.0.10', '29.0.16')).toBeUndefined();
    expect(upgradeProblem('29.0.16', '30.0.17')).toBeUndefined();
    expect(upgradeProblem('29.0.16', '31.0.9')).toBe(
      'spec.version: upgrade from 29.0.16 to 31.0.9 skips a major; upgrade to 30 first (the instance keeps running 29.0.16)',
    );
    expect(upgradeProblem('30.0.17', '29.0.16')).toBe(
      'spec.version: downgrade from 30.0.17 to 29.0.16 refused; the instance keeps running 30.0.17',
    );
  });

  it('keeps the running version when the wanted one is refused, and goes anywhere before an install', () => {
    const running = resolveVersion('29')!;
    expect(chooseVersion('30', running)).toEqual({ resolution: resolveVersion('30') });
    expect(chooseVersion('31', running)).toEqual({
      resolution: running,
      blocked: upgradeProblem('29.0.16', '31.0.9'),
    });
    expect(chooseVersion('28', undefined)).toEqual({ resolution: resolveVersion('28') });
  });
});
