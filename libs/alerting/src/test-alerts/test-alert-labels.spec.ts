import { describe, expect, it } from '@jest/globals';
import { labelProblems, regexPlaceholder, testAlertLabels } from './test-alert-labels.js';

describe('test alert labels', () => {
  it('takes eq values and re placeholders from the matchers, then the overrides per key', () => {
    expect(
      testAlertLabels(
        [
          { label: 'service', op: 'eq', value: 'db' },
          { label: 'env', op: 're', value: 'prod-.*' },
          { label: 'team', op: 're', value: 'core|edge' },
        ],
        { team: 'core', instance: 'db-1' },
      ),
    ).toEqual({
      service: 'db',
      env: '<matches: prod-.*>',
      team: 'core',
      instance: 'db-1',
      platform_test: 'true',
      severity: 'critical',
    });
  });

  it('lets eq win over re on one label, and the first matcher among equals', () => {
    expect(
      testAlertLabels(
        [
          { label: 'env', op: 're', value: 'prod|staging' },
          { label: 'env', op: 'eq', value: 'prod' },
          { label: 'env', op: 'eq', value: 'staging' },
          { label: 'zone', op: 're', value: 'a' },
          { label: 'zone', op: 're', value: 'b' },
        ],
        {},
      ),
    ).toMatchObject({ env: 'prod', zone: regexPlaceholder('a') });
  });

  it('forces platform_test to "true" whatever is given', () => {
    expect(
      testAlertLabels([{ label: 'platform_test', op: 'eq', value: 'no' }], {
        platform_test: 'false',
      }).platform_test,
    ).toBe('true');
  });

  it.each([
    [undefined, 'critical'],
    ['warning', 'warning'],
    ['info', 'info'],
    ['high', 'high'],
    ['Critical', 'critical'],
    ['page', 'critical'],
    ['', 'critical'],
  ])('turns severity %p into %p', (given, expected) => {
    const overrides: Record<string, string> = given === undefined ? {} : { severity: given };
    expect(testAlertLabels([], overrides).severity).toBe(expected);
  });

  it('derives severity from a matcher too, and a placeholder is no severity', () => {
    expect(testAlertLabels([{ label: 'severity', op: 'eq', value: 'info' }], {}).severity).toBe(
      'info',
    );
    expect(
      testAlertLabels([{ label: 'severity', op: 're', value: 'info|warning' }], {}).severity,
    ).toBe('critical');
  });

  it('keeps a label named like an object prototype key as a label', () => {
    const labels = testAlertLabels([], JSON.parse('{"__proto__": "x"}') as Record<string, string>);
    expect(Object.keys(labels)).toContain('__proto__');
    expect(JSON.parse(JSON.stringify(labels))).toMatchObject({ platform_test: 'true' });
    expect(Object.getPrototypeOf(labels)).toBe(Object.prototype);
  });

  it('accepts a map of label names to strings and names every problem otherwise', () => {
    expect(labelProblems({ alertname: 'Disk', _x: '' })).toEqual([]);
    expect(labelProblems([])).toEqual(['labels must be an object of label names to strings']);
    expect(labelProblems('a=b')).toEqual(['labels must be an object of label names to strings']);
    expect(
      labelProblems({ team: 1, 'bad-name': 'x', long: 'v'.repeat(1025), nul: 'a\u0000' }),
    ).toEqual([
      'labels.team must be a string',
      'labels.bad-name: the name must match ^[A-Za-z_][A-Za-z0-9_]*$ (at most 128 characters)',
      'labels.long must be at most 1024 characters',
      'labels.nul must not contain NUL',
    ]);
    expect(
      labelProblems(Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`l${i}`, 'v']))),
    ).toEqual(['labels must have at most 64 entries']);
  });
});
