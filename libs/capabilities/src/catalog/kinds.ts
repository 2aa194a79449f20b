/**
 * The kind sets of Axis B. `null` is unbounded: for a Limit, every kind the feature offers
 * now or later; for a Grant, whatever the Limit allows at the moment of the check.
 */
export type KindSet = readonly string[] | null;

/** Available = Grant ∩ current Limit; `null` only when both are unbounded. No grant: nothing. */
export function effectiveKinds(grant: KindSet | undefined, limit: KindSet): KindSet {
  if (grant === undefined) return [];
  if (grant === null) return limit === null ? null : [...limit];
  if (limit === null) return [...grant];
  return grant.filter((kind) => limit.includes(kind));
}

/** The kinds of `wanted` that `limit` does not cover. */
export function kindsBeyond(wanted: KindSet, limit: KindSet): string[] {
  if (limit === null || wanted === null) return [];
  return wanted.filter((kind) => !limit.includes(kind));
}

/** The concrete kinds a project may create now (unbounded resolves to the catalog's kinds). */
export function concreteKinds(effective: KindSet, available: readonly string[]): string[] {
  return effective === null ? [...available] : available.filter((k) => effective.includes(k));
}

export function isEnabled(effective: KindSet, kind?: string): boolean {
  if (effective === null) return true;
  return kind === undefined ? effective.length > 0 : effective.includes(kind);
}

/** Distinct kinds in the catalog's order. */
export function normalizeKinds(kinds: readonly string[], available: readonly string[]): string[] {
  return available.filter((kind) => kinds.includes(kind));
}

/** How a Limit moved: what it no longer allows and what it newly allows. */
export function limitChange(
  before: KindSet,
  after: KindSet,
  available: readonly string[],
): { removed: string[]; added: string[] } {
  const resolve = (set: KindSet) => (set === null ? [...available] : set);
  const [from, to] = [resolve(before), resolve(after)];
  return {
    removed: from.filter((kind) => !to.includes(kind)),
    added: to.filter((kind) => !from.includes(kind)),
  };
}
