import { describe, expect, it } from '@jest/globals';
import type { Matcher } from '../matchers/matchers.js';
import type { Severity } from '../severity.js';
import { type RoutableRoute, Router } from './routing.js';

let created = 0;
function route(
  id: string,
  priority: number,
  matchers: Matcher[] = [],
  extra: Partial<RoutableRoute> = {},
): RoutableRoute {
  created += 1;
  return {
    id,
    priority,
    createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, created)),
    enabled: true,
    matchers,
    minSeverity: null,
    ...extra,
  };
}

const alert = (labels: Record<string, string>, severity: Severity = 'critical') => ({
  labels,
  severity,
});

describe('routing', () => {
  const prod: Matcher = { label: 'env', op: 'eq', value: 'prod' };
  const db: Matcher = { label: 'service', op: 're', value: 'db-.*' };

  it('evaluates routes in ascending priority whatever order they come in', () => {
    const router = new Router([route('catch-all', 10), route('prod', 1, [prod])]);
    expect(router.route(alert({ env: 'prod' }))?.id).toBe('prod');
    expect(router.route(alert({ env: 'dev' }))?.id).toBe('catch-all');
  });

  it('takes the first route whose matchers all pass (eq and anchored re); nothing accumulates', () => {
    const router = new Router([
      route('prod-db', 1, [prod, db]),
      route('prod', 2, [prod]),
      route('db', 3, [db]),
    ]);
    expect(router.route(alert({ env: 'prod', service: 'db-1' }))?.id).toBe('prod-db');
    expect(router.route(alert({ env: 'prod', service: 'my-db-1' }))?.id).toBe('prod');
    expect(router.route(alert({ env: 'dev', service: 'db-1' }))?.id).toBe('db');
    expect(router.route(alert({ env: 'dev', service: 'web' }))).toBeNull();
  });

  it('skips a route whose severity threshold the alert does not meet', () => {
    const router = new Router([
      route('critical-only', 1, [], { minSeverity: 'high' }),
      route('rest', 2, [prod]),
    ]);
    expect(router.route(alert({ env: 'prod' }, 'critical'))?.id).toBe('critical-only');
    expect(router.route(alert({ env: 'prod' }, 'high'))?.id).toBe('critical-only');
    expect(router.route(alert({ env: 'prod' }, 'warning'))?.id).toBe('rest');
    expect(router.route(alert({ env: 'dev' }, 'info'))).toBeNull();
  });

  it('skips disabled routes, and routes whose stored pattern no longer compiles', () => {
    const router = new Router([
      route('off', 1, [], { enabled: false }),
      route('broken', 2, [{ label: 'x', op: 're', value: '(' }]),
      route('on', 3),
    ]);
    expect(router.route(alert({ x: '(' }))?.id).toBe('on');
  });

  it('breaks priority ties by creation time, then id', () => {
    const older = route('b-older', 5);
    const newer = route('a-newer', 5);
    expect(new Router([newer, older]).route(alert({}))?.id).toBe('b-older');
    const at = new Date(Date.UTC(2030, 0, 1));
    const twins = [route('z', 5, [], { createdAt: at }), route('m', 5, [], { createdAt: at })];
    expect(new Router(twins).route(alert({}))?.id).toBe('m');
  });

  it('explains every route in evaluation order', () => {
    const router = new Router([
      route('off', 1, [], { enabled: false }),
      route('prod-db', 2, [prod, db]),
      route('warning+', 3, [], { minSeverity: 'warning' }),
      route('prod', 4, [prod]),
      route('all', 5),
    ]);
    const explained = router.explain(alert({ env: 'prod', service: 'web' }, 'info'));
    expect(explained.map((e) => [e.route.id, e.outcome])).toEqual([
      ['off', 'disabled'],
      ['prod-db', 'matchers_failed'],
      ['warning+', 'below_threshold'],
      ['prod', 'matched'],
      ['all', 'shadowed'],
    ]);
    expect(explained[1].failedMatchers).toEqual([db]);
  });
});
