import { describe, expect, it } from '@jest/globals';
import { compileMatchers, type Matcher, matcherProblems } from './matchers.js';

describe('label matchers', () => {
  it.each<[string, Matcher[], Record<string, string>, boolean]>([
    ['no matchers match everything', [], { a: 'x' }, true],
    ['eq is exact', [{ label: 'env', op: 'eq', value: 'prod' }], { env: 'prod' }, true],
    ['eq is case-sensitive', [{ label: 'env', op: 'eq', value: 'prod' }], { env: 'Prod' }, false],
    ['eq on a missing label', [{ label: 'env', op: 'eq', value: 'prod' }], {}, false],
    ['eq "" matches a missing label', [{ label: 'env', op: 'eq', value: '' }], {}, true],
    ['re is anchored', [{ label: 'svc', op: 're', value: 'db-.*' }], { svc: 'my-db-1' }, false],
    [
      're matches the whole value',
      [{ label: 'svc', op: 're', value: 'db-.*' }],
      { svc: 'db-1' },
      true,
    ],
    [
      're alternation is anchored as a group',
      [{ label: 'svc', op: 're', value: 'api|web' }],
      { svc: 'webserver' },
      false,
    ],
    [
      'all matchers must pass',
      [
        { label: 'env', op: 'eq', value: 'prod' },
        { label: 'svc', op: 're', value: 'db-\\d+' },
      ],
      { env: 'prod', svc: 'db-x' },
      false,
    ],
  ])('%s', (_name, matchers, labels, expected) => {
    expect(compileMatchers(matchers)(labels)).toBe(expected);
  });

  it('evaluates a catastrophic-backtracking pattern in linear time', () => {
    const matches = compileMatchers([{ label: 'x', op: 're', value: '(a+)+$' }]);
    expect(matches({ x: `${'a'.repeat(50_000)}b` })).toBe(false);
  });

  it('names every problem of a matcher list', () => {
    expect(matcherProblems(undefined)).toEqual([]);
    expect(matcherProblems('x')).toEqual([
      { field: 'matchers', messages: ['matchers must be an array'] },
    ]);
    const problems = matcherProblems([
      { label: 'env', op: 'eq', value: 'prod' },
      { label: '1bad', op: 'like', value: 3 },
      { label: 'svc', op: 're', value: '(unclosed' },
      { label: 'svc', op: 're', value: '(?<=x)y' },
    ]);
    expect(problems.map((p) => p.field)).toEqual(['matchers[1]', 'matchers[2]', 'matchers[3]']);
    expect(problems[0].messages).toEqual([
      'label must be a label name',
      'op must be eq or re',
      'value must be a string',
    ]);
    expect(problems[1].messages[0]).toMatch(/^value is not a valid regular expression/);
  });
});
