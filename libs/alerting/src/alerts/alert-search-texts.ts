import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Clock, MetricsService } from '@platform/core';
import type { Gauge } from 'prom-client';
import { ProjectSearchTexts } from './project-search-texts.js';
import { AlertSearchTextsRepository } from './search-texts.repository.js';

/** Per project: its texts once read, and the read under way. */
interface Entry {
  texts: ProjectSearchTexts | null;
  reading: Promise<void> | null;
  /** No full read before this instant (clock milliseconds). */
  fullReadAfter: number;
}

/**
 * A full read may come again after this many times its own duration: removals of alerts in a
 * searched project cost it at most a twentieth of a connection.
 */
const FULL_READ_SPACING = 20;

/** Projects remembered (most of them holding no texts) before the least recent are forgotten. */
const MAX_ENTRIES = 10_000;

const BYTES = 'alert_search_memory_bytes';
const PROJECTS = 'alert_search_memory_projects';

/**
 * The search texts of recently searched projects, held in this process so that the first
 * search of a term counts its matches in memory instead of visiting every match in
 * PostgreSQL (see `ProjectSearchTexts`).
 *
 * A search reads them only when they stand at or before its snapshot's generation and counts
 * as of theirs can be brought forward (no alert went since); the changes after them are
 * counted in SQL, as with a kept total. After the search, `refresh` brings them up to date in
 * the background: the texts written and replaced since, or all of them again once alerts went
 * (spaced, see `FULL_READ_SPACING`). The first search of a project after the process starts,
 * or after its texts were dropped, counts in SQL while they are read.
 *
 * Memory is bounded by ALERT_SEARCH_MEMORY_MB (0 holds nothing): the projects searched least
 * recently are dropped first; a project whose texts alone would not fit is not held, and its
 * reads are spaced like full reads.
 */
@Injectable()
export class AlertSearchTexts implements OnModuleDestroy {
  private readonly logger = new Logger(AlertSearchTexts.name);
  /** In order of last use, least recent first. */
  private readonly entries = new Map<string, Entry>();
  private readonly budget: number;
  private bytes = 0;
  private closed = false;
  private readonly bytesGauge: Gauge;
  private readonly projectsGauge: Gauge;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly repository: AlertSearchTextsRepository,
    metrics: MetricsService,
    private readonly clock: Clock,
  ) {
    this.budget = config.alertSearchMemoryMb * 1024 * 1024;
    this.bytesGauge = metrics.gauge(
      BYTES,
      'Memory held by alert search texts of searched projects',
    );
    this.projectsGauge = metrics.gauge(PROJECTS, 'Projects whose alert search texts are held');
  }

  /**
   * The project's texts if they can count a search whose snapshot stands at `generation` with
   * the last rewrite at `rewritten`: not newer than the snapshot, nothing rewritten since them.
   */
  usable(projectId: string, generation: number, rewritten: number): ProjectSearchTexts | null {
    const texts = this.entries.get(projectId)?.texts ?? null;
    if (texts === null || texts.generation > generation || rewritten > texts.generation)
      return null;
    return texts;
  }

  /**
   * After a search whose snapshot stood at `generation` (last rewrite at `rewritten`): reads
   * the project's texts in the background unless they are current. One read per project at a
   * time; a search during a read schedules nothing.
   */
  refresh(projectId: string, generation: number, rewritten: number): void {
    if (this.budget === 0 || this.closed) return;
    let entry = this.entries.get(projectId);
    if (entry === undefined) {
      entry = { texts: null, reading: null, fullReadAfter: 0 };
      this.forgetLeastRecent();
    } else {
      // Most recently used last.
      this.entries.delete(projectId);
    }
    this.entries.set(projectId, entry);
    if (entry.reading !== null) return;
    const texts = entry.texts;
    if (texts !== null && texts.generation >= generation && rewritten <= texts.generation) return;
    // Afresh when the texts cannot be brought forward, or to drop the replaced texts once they
    // are a quarter of those held.
    const full =
      texts === null || rewritten > texts.generation || 4 * texts.replacedTexts > texts.alerts;
    if (full && this.clock.nowMs() < entry.fullReadAfter) return;
    const current = entry;
    current.reading = this.read(projectId, current, full ? null : texts)
      .catch((error: unknown) =>
        this.logger.warn(
          `reading the search texts of project ${projectId} failed: ${String(error)}`,
        ),
      )
      .finally(() => {
        current.reading = null;
      });
  }

  /** Resolves once no read is under way (for tests and shutdown). */
  async settled(): Promise<void> {
    for (;;) {
      const reading = [...this.entries.values()].flatMap((e) => (e.reading ? [e.reading] : []));
      if (reading.length === 0) return;
      await Promise.all(reading);
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    await this.settled();
  }

  private async read(
    projectId: string,
    entry: Entry,
    base: ProjectSearchTexts | null,
  ): Promise<void> {
    const started = this.clock.nowMs();
    const result = await this.repository.read(
      projectId,
      base?.generation ?? null,
      this.budget - (base?.bytes ?? 0),
    );
    const full = result.kind !== 'texts' || result.full;
    if (full) {
      const now = this.clock.nowMs();
      entry.fullReadAfter = now + FULL_READ_SPACING * (now - started);
    }
    let texts: ProjectSearchTexts | null = null;
    if (result.kind === 'texts') {
      texts =
        result.full || base === null
          ? ProjectSearchTexts.of(result.generation, result.texts)
          : base.append(result.generation, result.texts, result.replaced);
    }
    this.hold(entry, texts);
  }

  /** Puts `texts` in place of what the entry held, then drops the least recent to fit. */
  private hold(entry: Entry, texts: ProjectSearchTexts | null): void {
    this.bytes += (texts?.bytes ?? 0) - (entry.texts?.bytes ?? 0);
    entry.texts = texts;
    for (const other of this.entries.values()) {
      if (this.bytes <= this.budget) break;
      if (other.texts === null || other === entry) continue;
      this.bytes -= other.texts.bytes;
      other.texts = null;
    }
    if (this.bytes > this.budget && entry.texts !== null) {
      this.bytes -= entry.texts.bytes;
      entry.texts = null;
    }
    this.bytesGauge.set(this.bytes);
    this.projectsGauge.set([...this.entries.values()].filter((e) => e.texts !== null).length);
  }

  /** Keeps the number of remembered projects bounded; those reading or holding texts stay. */
  private forgetLeastRecent(): void {
    if (this.entries.size < MAX_ENTRIES) return;
    for (const [id, entry] of this.entries) {
      if (this.entries.size < MAX_ENTRIES) break;
      if (entry.reading === null && entry.texts === null) this.entries.delete(id);
    }
  }
}
