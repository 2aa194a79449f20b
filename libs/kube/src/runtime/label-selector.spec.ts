import { describe, expect, it } from '@jest/globals';
import {
  formatLabelSelector,
  LabelSelectorError,
  matchesLabels,
  parseLabelSelector,
} from './label-selector.js';

const labels = { app: 'restic', 'backups.k8s.neutral.com/job-type': 'backup', tier: 'data' };

describe('label selectors', () => {
  it('formats an equality map with sorted keys', () => {
    expect(formatLabelSelector({ tier: 'data', app: 'restic' })).toBe('app=restic,tier=data');
  });

  it('matches equality maps against labels', () => {
    expect(matchesLabels(labels, { app: 'restic', tier: 'data' })).toBe(true);
    expect(matchesLabels(labels, { app: 'other' })).toBe(false);
    expect(matchesLabels(undefined, { app: 'restic' })).toBe(false);
    expect(matchesLabels(undefined, undefined)).toBe(true);
  });

  it.each([
    ['app=restic', true],
    ['app==restic', true],
    ['app!=restic', false],
    ['app!=other', true],
    ['missing!=x', true],
    ['backups.k8s.neutral.com/job-type in (backup, check)', true],
    ['backups.k8s.neutral.com/job-type notin (backup,check)', false],
    ['missing notin (a)', true],
    ['missing in (a)', false],
    ['tier', true],
    ['!tier', false],
    ['!missing', true],
    ['app=restic,tier in (data),!missing', true],
    ['app=restic, tier=web', false],
    ['', true],
  ])('"%s" selects the labels: %s', (selector, expected) => {
    expect(parseLabelSelector(selector)(labels)).toBe(expected);
  });

  it('refuses malformed selectors', () => {
    expect(() => parseLabelSelector('app in (a')).toThrow(LabelSelectorError);
    expect(() => parseLabelSelector('app=a=b')).toThrow(LabelSelectorError);
    expect(() => parseLabelSelector('a b')).toThrow(LabelSelectorError);
  });
});
