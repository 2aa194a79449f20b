import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** What `AlertSearchTextsRepository.read` found. */
export type SearchTextsRead =
  /** The project has no search state: it never had an alert. */
  | { kind: 'none' }
  /** The project's texts would pass the given number of characters. */
  | { kind: 'too_large' }
  /**
   * Texts as of `generation`: every text of the project (`full`), or, when nothing was
   * rewritten since the requested generation, the texts written after it and the texts of
   * then that were replaced since.
   */
  | { kind: 'texts'; generation: number; full: boolean; texts: string[]; replaced: string[] };

const BATCH = 10_000;

@Injectable()
export class AlertSearchTextsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The project's search texts, read in one snapshot with the generation they stand at: those
   * written after `since` and those of `since` replaced after it, or all of them when `since`
   * is null or counts as of `since` cannot be brought forward (`rewritten_generation`).
   * Fetched in batches through a cursor, and given up once they pass `maxChars`.
   */
  async read(projectId: string, since: number | null, maxChars: number): Promise<SearchTextsRead> {
    return this.dataSource.transaction('REPEATABLE READ', async (manager) => {
      const [state]: Array<{ generation: string; rewritten_generation: string }> =
        await manager.query(
          `SELECT generation, rewritten_generation FROM alert_search_state WHERE project_id = $1`,
          [projectId],
        );
      if (state === undefined) return { kind: 'none' };
      const generation = Number(state.generation);
      const full = since === null || Number(state.rewritten_generation) > since;
      await manager.query(
        `DECLARE search_texts NO SCROLL CURSOR FOR
           SELECT search_text FROM alert_search
            WHERE project_id = $1${full ? '' : ' AND generation > $2'}`,
        full ? [projectId] : [projectId, since],
      );
      const texts: string[] = [];
      let chars = 0;
      for (;;) {
        const rows: Array<{ search_text: string }> = await manager.query(
          `FETCH ${BATCH} FROM search_texts`,
        );
        for (const row of rows) {
          texts.push(row.search_text);
          chars += row.search_text.length + 1;
        }
        if (chars > maxChars) return { kind: 'too_large' };
        if (rows.length < BATCH) break;
      }
      const replaced: Array<{ search_text: string }> = full
        ? []
        : await manager.query(
            `SELECT search_text FROM alert_search_replaced
              WHERE project_id = $1 AND generation > $2 AND written_generation <= $2`,
            [projectId, since],
          );
      return {
        kind: 'texts',
        generation,
        full,
        texts,
        replaced: replaced.map((row) => row.search_text),
      };
    });
  }
}
