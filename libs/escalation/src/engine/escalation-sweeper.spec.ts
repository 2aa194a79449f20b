import { describe, expect, it } from '@jest/globals';
import {
  STALE_PAGE_BEHIND_BACKLOG_MS,
  STALE_PAGE_MS,
  stalePagesBefore,
} from './escalation-sweeper.js';

describe('stalePagesBefore', () => {
  const now = new Date('2026-11-27T12:00:00Z');

  it('presumes a page lost after 30 s when no page job waits or runs', () => {
    expect(STALE_PAGE_MS).toBe(30_000);
    expect(stalePagesBefore(now, 0)).toEqual(new Date('2026-11-27T11:59:30Z'));
  });

  it('waits ten minutes while page jobs wait or run: the page is most likely among them', () => {
    expect(STALE_PAGE_BEHIND_BACKLOG_MS).toBe(600_000);
    expect(stalePagesBefore(now, 1)).toEqual(new Date('2026-11-27T11:50:00Z'));
    expect(stalePagesBefore(now, 40)).toEqual(new Date('2026-11-27T11:50:00Z'));
  });
});
