/**
 * SQL: the feature of Grant `g` is Available to its project under Limit `l` (left-joined on
 * the project's organization and the feature): the Grant's kinds within the Limit are not
 * empty, null meaning unbounded on either side (capabilities' `effectiveKinds`).
 */
export const FEATURE_AVAILABLE = `CASE
    WHEN g.allowed_kinds IS NULL AND l.allowed_kinds IS NULL THEN true
    WHEN g.allowed_kinds IS NULL THEN cardinality(l.allowed_kinds) > 0
    WHEN l.allowed_kinds IS NULL THEN cardinality(g.allowed_kinds) > 0
    ELSE g.allowed_kinds && l.allowed_kinds
  END`;
