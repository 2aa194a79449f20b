/**
 * Who a roster pages at one instant, given what the schedule says and who is absent:
 * - the override's account, when an override covers the instant and its account is not absent;
 * - otherwise the scheduled member, or, when absent, the next member in rotation order who is
 *   not (wrapping past the last member to the first);
 * - when nobody of those is available, someone is paged anyway: the override's account (it was
 *   put on call explicitly), else the scheduled member;
 * - nobody when neither an override nor the rotation names anyone.
 * `members` holds only accounts that may be paged (members of the organization), in rotation
 * order; `scheduledIndex` indexes into it.
 */
export function chooseOnCall(input: {
  members: readonly string[];
  scheduledIndex: number | null;
  overrideAccountId: string | null;
  isAbsent: (accountId: string) => boolean;
}): string | null {
  const { members, scheduledIndex, overrideAccountId, isAbsent } = input;
  if (overrideAccountId !== null && !isAbsent(overrideAccountId)) return overrideAccountId;
  const scheduled =
    scheduledIndex !== null && members.length > 0 ? scheduledIndex % members.length : null;
  if (scheduled !== null) {
    for (let step = 0; step < members.length; step += 1) {
      const candidate = members[(scheduled + step) % members.length];
      if (!isAbsent(candidate)) return candidate;
    }
  }
  return overrideAccountId ?? (scheduled !== null ? members[scheduled] : null);
}
