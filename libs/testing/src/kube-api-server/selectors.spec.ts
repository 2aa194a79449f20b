import { describe, expect, it } from '@jest/globals';
import { KubeStatusError } from './errors.js';
import { FieldSelector, LabelSelector } from './selectors.js';

describe('LabelSelector', () => {
  const labels = { app: 'web', tier: 'front', 'example.com/team': 'a' };
  const matches = (selector: string, value: Record<string, string> | undefined = labels) =>
    LabelSelector.parse(selector)!.matches(value);

  it('matches every requirement kind of the Kubernetes syntax', () => {
    expect(matches('app=web')).toBe(true);
    expect(matches('app==web')).toBe(true);
    expect(matches('app!=web')).toBe(false);
    expect(matches('app!=db')).toBe(true);
    expect(matches('tier in (front, back)')).toBe(true);
    expect(matches('tier notin (front)')).toBe(false);
    expect(matches('missing notin (x)')).toBe(true);
    expect(matches('example.com/team')).toBe(true);
    expect(matches('!example.com/team')).toBe(false);
    expect(matches('!missing,app=web,tier in (front)')).toBe(true);
    expect(LabelSelector.parse('app=web')!.matches(undefined)).toBe(false);
    expect(LabelSelector.parse('app!=web')!.matches(undefined)).toBe(true);
  });

  it('treats an empty selector as no selector', () => {
    expect(LabelSelector.parse('')).toBeUndefined();
    expect(LabelSelector.parse(undefined)).toBeUndefined();
  });

  it('refuses malformed selectors with 400', () => {
    for (const bad of ['app in web', 'app=(x', '=x', 'a b', 'tier in (front']) {
      expect(() => LabelSelector.parse(bad)).toThrow(KubeStatusError);
    }
  });
});

describe('FieldSelector', () => {
  it('matches metadata.name and metadata.namespace', () => {
    const selector = FieldSelector.parse('metadata.name=a,metadata.namespace!=kube-system')!;
    expect(selector.matches('default', 'a')).toBe(true);
    expect(selector.matches('kube-system', 'a')).toBe(false);
    expect(selector.matches('default', 'b')).toBe(false);
    expect(selector.exactName).toBe('a');
  });

  it('refuses other fields with 400', () => {
    expect(() => FieldSelector.parse('status.phase=Running')).toThrow('field label not supported');
  });
});
