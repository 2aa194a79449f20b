import {
  type CompiledMatcher,
  compileMatcher,
  type Labels,
  type Matcher,
} from '../matchers/matchers.js';
import { meetsThreshold, type Severity } from '../severity.js';

/** What routing needs of a route. */
export interface RoutableRoute {
  id: string;
  priority: number;
  createdAt: Date;
  enabled: boolean;
  matchers: readonly Matcher[];
  minSeverity: Severity | null;
}

/** What routing needs of an alert. */
export interface RoutableAlert {
  labels: Labels;
  severity: Severity;
}

/**
 * Why a route did or did not take an alert, in evaluation order:
 * - matched: this route wins;
 * - shadowed: it would match, but a route evaluated earlier already won;
 * - disabled: disabled routes are skipped;
 * - matchers_failed: at least one matcher did not pass (`failed_matchers` lists them);
 * - below_threshold: the matchers pass, but the severity is below the route's minimum.
 */
export type RouteOutcome =
  'matched' | 'shadowed' | 'disabled' | 'matchers_failed' | 'below_threshold';

export interface RouteEvaluation<R extends RoutableRoute> {
  route: R;
  outcome: RouteOutcome;
  failedMatchers: Matcher[];
}

/** Evaluation order: ascending priority, then the older route, then the id (total and stable). */
export function compareRoutes(a: RoutableRoute, b: RoutableRoute): number {
  if (a.priority !== b.priority) return a.priority - b.priority;
  const byAge = a.createdAt.getTime() - b.createdAt.getTime();
  if (byAge !== 0) return byAge;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

interface CompiledRoute<R extends RoutableRoute> {
  route: R;
  matchers: Array<{ matcher: Matcher; matches: CompiledMatcher }> | null;
}

/**
 * A project's routes compiled once (the RE2 patterns included) and evaluated for any number of
 * alerts. Routing rule: enabled routes in ascending priority; the first whose matchers all
 * pass and whose severity threshold admits the alert wins; nothing accumulates across routes;
 * no winner means nothing happens.
 */
export class Router<R extends RoutableRoute> {
  private readonly compiled: Array<CompiledRoute<R>>;

  constructor(routes: readonly R[]) {
    this.compiled = [...routes].sort(compareRoutes).map((route) => ({
      route,
      matchers: compileAll(route.matchers),
    }));
  }

  /** The winning route, or null. */
  route(alert: RoutableAlert): R | null {
    for (const { route, matchers } of this.compiled) {
      if (!route.enabled || matchers === null) continue;
      if (!matchers.every((m) => m.matches(alert.labels))) continue;
      if (!meetsThreshold(alert.severity, route.minSeverity)) continue;
      return route;
    }
    return null;
  }

  /** Every route's outcome for the alert, in evaluation order (for previews). */
  explain(alert: RoutableAlert): Array<RouteEvaluation<R>> {
    let won = false;
    return this.compiled.map(({ route, matchers }) => {
      if (!route.enabled) return { route, outcome: 'disabled', failedMatchers: [] };
      const failedMatchers =
        matchers === null
          ? [...route.matchers]
          : matchers.filter((m) => !m.matches(alert.labels)).map((m) => m.matcher);
      if (failedMatchers.length > 0) return { route, outcome: 'matchers_failed', failedMatchers };
      if (!meetsThreshold(alert.severity, route.minSeverity))
        return { route, outcome: 'below_threshold', failedMatchers: [] };
      const outcome = won ? 'shadowed' : 'matched';
      won = true;
      return { route, outcome, failedMatchers: [] };
    });
  }
}

/** Null when a stored pattern no longer compiles: such a route never matches. */
function compileAll(
  matchers: readonly Matcher[],
): Array<{ matcher: Matcher; matches: CompiledMatcher }> | null {
  try {
    return matchers.map((matcher) => ({ matcher, matches: compileMatcher(matcher) }));
  } catch {
    return null;
  }
}
