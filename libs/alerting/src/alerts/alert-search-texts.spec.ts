import { describe, expect, it } from '@jest/globals';
import { type AppConfig, Clock, MetricsService } from '@platform/core';
import { AlertSearchTexts } from './alert-search-texts.js';
import type { AlertSearchTextsRepository, SearchTextsRead } from './search-texts.repository.js';

/** A project's rows as the repository would read them: text and generation. */
type Rows = Array<{ text: string; generation: number }>;

/** Texts replaced at `generation`, written at `written`. */
type Replaced = Array<{ text: string; generation: number; written: number }>;

/** Time stands still unless a read moves it, as a slow read would. */
class FakeClock extends Clock {
  ms = 1_000_000;
  now(): Date {
    return new Date(this.ms);
  }
}

/** Reads from in-memory projects, recording every call. */
class FakeRepository {
  readonly projects = new Map<string, { rows: Rows; rewritten: number; replaced?: Replaced }>();
  readonly calls: Array<{ projectId: string; since: number | null }> = [];
  /** How far a read moves the clock. */
  readMs = 0;

  constructor(private readonly clock: FakeClock) {}

  async read(projectId: string, since: number | null, maxChars: number): Promise<SearchTextsRead> {
    this.calls.push({ projectId, since });
    this.clock.ms += this.readMs;
    const project = this.projects.get(projectId);
    if (project === undefined) return { kind: 'none' };
    const generation = Math.max(0, ...project.rows.map((r) => r.generation));
    const full = since === null || project.rewritten > since;
    const texts = project.rows.filter((r) => full || r.generation > since).map((r) => r.text);
    if (texts.reduce((n, t) => n + t.length + 1, 0) > maxChars) return { kind: 'too_large' };
    const replaced = full
      ? []
      : (project.replaced ?? [])
          .filter((r) => r.generation > since && r.written <= since)
          .map((r) => r.text);
    return { kind: 'texts', generation, full, texts, replaced };
  }
}

function setUp(memoryMb: number) {
  const clock = new FakeClock();
  const repository = new FakeRepository(clock);
  const metrics = new MetricsService();
  const texts = new AlertSearchTexts(
    { alertSearchMemoryMb: memoryMb } as AppConfig,
    repository as unknown as AlertSearchTextsRepository,
    metrics,
    clock,
  );
  const gauge = async (name: string) =>
    (await metrics.registry.getSingleMetric(name)!.get()).values[0]?.value;
  return { repository, texts, gauge, clock };
}

const rows = (count: number, text: string, generation: number): Rows =>
  Array.from({ length: count }, () => ({ text, generation }));

describe('AlertSearchTexts', () => {
  it('holds nothing until a search asks, then reads the project in the background', async () => {
    const { repository, texts, gauge } = setUp(1);
    repository.projects.set('p', { rows: rows(3, 'queue', 4), rewritten: 0 });
    expect(texts.usable('p', 4, 0)).toBeNull();
    texts.refresh('p', 4, 0);
    expect(texts.usable('p', 4, 0)).toBeNull();
    await texts.settled();
    expect(texts.usable('p', 4, 0)?.count('queue')).toBe(3);
    expect(repository.calls).toEqual([{ projectId: 'p', since: null }]);
    expect(await gauge('alert_search_memory_bytes')).toBe(18);
    expect(await gauge('alert_search_memory_projects')).toBe(1);
  });

  it('serves a snapshot at or after its generation with no rewrite since, and no other', async () => {
    const { repository, texts } = setUp(1);
    repository.projects.set('p', { rows: rows(2, 'x', 5), rewritten: 3 });
    texts.refresh('p', 5, 3);
    await texts.settled();
    expect(texts.usable('p', 5, 3)).not.toBeNull();
    expect(texts.usable('p', 9, 5)).not.toBeNull();
    // An older snapshot, or a rewrite after the texts.
    expect(texts.usable('p', 4, 3)).toBeNull();
    expect(texts.usable('p', 9, 6)).toBeNull();
    expect(texts.usable('q', 5, 3)).toBeNull();
  });

  it('adds only the texts written since when nothing was rewritten, else reads all again', async () => {
    const { repository, texts } = setUp(1);
    const project = { rows: rows(2, 'old', 1), rewritten: 0 };
    repository.projects.set('p', project);
    texts.refresh('p', 1, 0);
    await texts.settled();
    project.rows.push(...rows(3, 'new', 2));
    texts.refresh('p', 2, 0);
    await texts.settled();
    expect(repository.calls.at(-1)).toEqual({ projectId: 'p', since: 1 });
    expect(texts.usable('p', 2, 0)?.count('new')).toBe(3);
    expect(texts.usable('p', 2, 0)?.count('old')).toBe(2);
    // Up to date: no read.
    texts.refresh('p', 2, 0);
    await texts.settled();
    expect(repository.calls).toHaveLength(2);

    project.rows.splice(0, 1);
    project.rows.push({ text: 'newer', generation: 3 });
    project.rewritten = 3;
    texts.refresh('p', 3, 3);
    await texts.settled();
    expect(repository.calls.at(-1)).toEqual({ projectId: 'p', since: null });
    expect(texts.usable('p', 3, 3)?.count('old')).toBe(1);
    expect(texts.usable('p', 3, 3)?.count('new')).toBe(4);
  });

  it('counts off the texts replaced since, and reads afresh once they are a quarter', async () => {
    const { repository, texts } = setUp(1);
    const project = { rows: rows(8, 'old', 1), rewritten: 0, replaced: [] as Replaced };
    repository.projects.set('p', project);
    texts.refresh('p', 1, 0);
    await texts.settled();
    // Two texts replaced at 2 and 3; one alert added at 3 and replaced at 4.
    project.rows.splice(0, 2, { text: 'new', generation: 2 }, { text: 'new', generation: 3 });
    project.rows.push({ text: 'newer', generation: 4 });
    project.replaced.push(
      { text: 'old', generation: 2, written: 1 },
      { text: 'old', generation: 3, written: 1 },
      { text: 'added', generation: 4, written: 3 },
    );
    texts.refresh('p', 4, 0);
    await texts.settled();
    expect(repository.calls.at(-1)).toEqual({ projectId: 'p', since: 1 });
    const held = texts.usable('p', 4, 0)!;
    expect([held.count('old'), held.count('new'), held.count('newer'), held.alerts]).toEqual([
      6, 3, 1, 9,
    ]);
    expect(held.replacedTexts).toBe(2);

    project.rows.splice(2, 1, { text: 'new', generation: 5 });
    project.replaced.push({ text: 'old', generation: 5, written: 1 });
    texts.refresh('p', 5, 0);
    await texts.settled();
    expect(repository.calls.at(-1)).toEqual({ projectId: 'p', since: 4 });
    expect(texts.usable('p', 5, 0)!.replacedTexts).toBe(3);
    // 3 of 9: more than a quarter, so the next refresh reads afresh.
    project.rows.push({ text: 'x', generation: 6 });
    texts.refresh('p', 6, 0);
    await texts.settled();
    expect(repository.calls.at(-1)).toEqual({ projectId: 'p', since: null });
    const fresh = texts.usable('p', 6, 0)!;
    expect([fresh.count('old'), fresh.count('new'), fresh.replacedTexts, fresh.alerts]).toEqual([
      5, 4, 0, 10,
    ]);
  });

  it('spaces full reads by twenty times the last one took', async () => {
    const { repository, texts, clock } = setUp(1);
    const project = { rows: rows(1, 'x', 1), rewritten: 0 };
    repository.projects.set('p', project);
    repository.readMs = 50;
    texts.refresh('p', 1, 0);
    await texts.settled();
    project.rows.push({ text: 'y', generation: 2 });
    project.rewritten = 2;
    texts.refresh('p', 2, 2);
    await texts.settled();
    expect(repository.calls).toHaveLength(1);
    expect(texts.usable('p', 2, 2)).toBeNull();
    clock.ms += 999;
    texts.refresh('p', 2, 2);
    await texts.settled();
    expect(repository.calls).toHaveLength(1);
    clock.ms += 1;
    texts.refresh('p', 2, 2);
    await texts.settled();
    expect(repository.calls).toEqual([
      { projectId: 'p', since: null },
      { projectId: 'p', since: null },
    ]);
    expect(texts.usable('p', 2, 2)?.count('y')).toBe(1);
    // Texts added since are read at once.
    project.rows.push({ text: 'z', generation: 3 });
    texts.refresh('p', 3, 2);
    await texts.settled();
    expect(repository.calls.at(-1)).toEqual({ projectId: 'p', since: 2 });
  });

  it('drops the projects searched least recently to stay within its memory', async () => {
    const { repository, texts, gauge } = setUp(1);
    const half = 'x'.repeat(400 * 1024);
    for (const id of ['a', 'b', 'c'])
      repository.projects.set(id, { rows: rows(1, half, 1), rewritten: 0 });
    texts.refresh('a', 1, 0);
    texts.refresh('b', 1, 0);
    await texts.settled();
    expect(texts.usable('a', 1, 0)).not.toBeNull();
    texts.refresh('a', 1, 0); // a is now the most recent
    texts.refresh('c', 1, 0);
    await texts.settled();
    expect(texts.usable('a', 1, 0)).not.toBeNull();
    expect(texts.usable('b', 1, 0)).toBeNull();
    expect(texts.usable('c', 1, 0)).not.toBeNull();
    expect(await gauge('alert_search_memory_projects')).toBe(2);
    expect(await gauge('alert_search_memory_bytes')).toBe(2 * (half.length + 1));
  });

  it('holds no project whose texts alone exceed its memory, and holds nothing at 0 MB', async () => {
    const big = setUp(1);
    big.repository.projects.set('p', { rows: rows(3, 'x'.repeat(400 * 1024), 1), rewritten: 0 });
    big.texts.refresh('p', 1, 0);
    await big.texts.settled();
    expect(big.texts.usable('p', 1, 0)).toBeNull();
    expect(await big.gauge('alert_search_memory_bytes')).toBe(0);

    const none = setUp(0);
    none.repository.projects.set('p', { rows: rows(1, 'x', 1), rewritten: 0 });
    none.texts.refresh('p', 1, 0);
    await none.texts.settled();
    expect(none.texts.usable('p', 1, 0)).toBeNull();
    expect(none.repository.calls).toEqual([]);
  });

  it('reads a project once at a time, and nothing after the module is destroyed', async () => {
    const { repository, texts } = setUp(1);
    repository.projects.set('p', { rows: rows(1, 'x', 1), rewritten: 0 });
    texts.refresh('p', 1, 0);
    texts.refresh('p', 1, 0);
    await texts.onModuleDestroy();
    expect(repository.calls).toHaveLength(1);
    repository.projects.set('q', { rows: rows(1, 'x', 1), rewritten: 0 });
    texts.refresh('q', 1, 0);
    await texts.settled();
    expect(repository.calls).toHaveLength(1);
  });
});
