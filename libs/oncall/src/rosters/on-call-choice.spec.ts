import { describe, expect, it } from '@jest/globals';
import { chooseOnCall } from './on-call-choice.js';

const members = ['ann', 'bob', 'cid'];
const absent =
  (...ids: string[]) =>
  (id: string) =>
    ids.includes(id);

describe('chooseOnCall', () => {
  it('pages the scheduled member when present', () => {
    expect(
      chooseOnCall({ members, scheduledIndex: 1, overrideAccountId: null, isAbsent: absent() }),
    ).toBe('bob');
  });

  it('lets an override win over the rotation', () => {
    expect(
      chooseOnCall({ members, scheduledIndex: 1, overrideAccountId: 'zoe', isAbsent: absent() }),
    ).toBe('zoe');
  });

  it('skips an absent scheduled member for the next one in rotation order, wrapping', () => {
    expect(
      chooseOnCall({
        members,
        scheduledIndex: 1,
        overrideAccountId: null,
        isAbsent: absent('bob'),
      }),
    ).toBe('cid');
    expect(
      chooseOnCall({
        members,
        scheduledIndex: 2,
        overrideAccountId: null,
        isAbsent: absent('cid'),
      }),
    ).toBe('ann');
    expect(
      chooseOnCall({
        members,
        scheduledIndex: 1,
        overrideAccountId: null,
        isAbsent: absent('bob', 'cid'),
      }),
    ).toBe('ann');
  });

  it('pages the scheduled member anyway when every member is absent', () => {
    expect(
      chooseOnCall({
        members,
        scheduledIndex: 2,
        overrideAccountId: null,
        isAbsent: absent(...members),
      }),
    ).toBe('cid');
  });

  it('falls back to the rotation when the overriding account is absent', () => {
    expect(
      chooseOnCall({
        members,
        scheduledIndex: 0,
        overrideAccountId: 'zoe',
        isAbsent: absent('zoe'),
      }),
    ).toBe('ann');
    expect(
      chooseOnCall({
        members,
        scheduledIndex: 0,
        overrideAccountId: 'zoe',
        isAbsent: absent('zoe', 'ann'),
      }),
    ).toBe('bob');
  });

  it('pages the overriding account anyway when it and every member are absent', () => {
    expect(
      chooseOnCall({
        members,
        scheduledIndex: 0,
        overrideAccountId: 'zoe',
        isAbsent: absent('zoe', ...members),
      }),
    ).toBe('zoe');
    expect(
      chooseOnCall({
        members: [],
        scheduledIndex: null,
        overrideAccountId: 'zoe',
        isAbsent: absent('zoe'),
      }),
    ).toBe('zoe');
  });

  it('pages nobody when neither an override nor the rotation names anyone', () => {
    expect(
      chooseOnCall({ members, scheduledIndex: null, overrideAccountId: null, isAbsent: absent() }),
    ).toBeNull();
    expect(
      chooseOnCall({ members: [], scheduledIndex: 0, overrideAccountId: null, isAbsent: absent() }),
    ).toBeNull();
  });

  it('never leaves the scheduled member for an absent one', () => {
    expect(
      chooseOnCall({
        members: ['ann', 'bob'],
        scheduledIndex: 0,
        overrideAccountId: null,
        isAbsent: absent('bob'),
      }),
    ).toBe('ann');
  });
});
