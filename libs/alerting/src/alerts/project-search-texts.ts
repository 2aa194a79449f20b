/**
 * The search texts of one project's alerts as of one search generation, held as a few long
 * strings: the texts joined and ended by NUL, which PostgreSQL text never holds, so no match
 * crosses from one alert to the next. Counting the alerts whose text contains a term is a run
 * of `indexOf` calls over about a hundred bytes per alert: a few milliseconds for 250,000
 * alerts, where PostgreSQL needs 50–150 ms to visit every match.
 *
 * The texts are an exact copy of the project's `alert_search` rows up to `generation`, nothing
 * later and nothing rewritten since (see the `alert_search_state` migration). An instance never
 * changes: appending gives a new one that shares the full chunks.
 */
export class ProjectSearchTexts {
  /** Chunks grow to about this many characters; only the last one is copied on append. */
  static readonly CHUNK_CHARS = 1 << 20;

  private constructor(
    private readonly chunkChars: number,
    readonly generation: number,
    private readonly chunks: readonly string[],
    /** Alerts held. */
    readonly alerts: number,
    /** Memory the chunks take, counting one byte per Latin-1 character and two otherwise. */
    readonly bytes: number,
  ) {}

  static of(
    generation: number,
    texts: readonly string[],
    chunkChars = ProjectSearchTexts.CHUNK_CHARS,
  ): ProjectSearchTexts {
    return new ProjectSearchTexts(chunkChars, generation, [], 0, 0).append(generation, texts);
  }

  /** These texts and `texts` added after them, as of `generation`. */
  append(generation: number, texts: readonly string[]): ProjectSearchTexts {
    const chunks = [...this.chunks];
    let bytes = this.bytes;
    // The last chunk takes more alerts until it is full.
    let open = '';
    if (chunks.length > 0 && chunks[chunks.length - 1].length < this.chunkChars) {
      open = chunks.pop()!;
      bytes -= weight(open);
    }
    let parts: string[] = [open];
    let length = open.length;
    const close = () => {
      const chunk = parts.join('');
      chunks.push(chunk);
      bytes += weight(chunk);
      parts = [];
      length = 0;
    };
    for (const text of texts) {
      parts.push(text, '\0');
      length += text.length + 1;
      if (length >= this.chunkChars) close();
    }
    if (length > 0) close();
    return new ProjectSearchTexts(
      this.chunkChars,
      generation,
      chunks,
      this.alerts + texts.length,
      bytes,
    );
  }

  /** Alerts whose text contains `term` (non-empty, without NUL), each counted once. */
  count(term: string): number {
    let matches = 0;
    for (const chunk of this.chunks) {
      let from = 0;
      for (;;) {
        const at = chunk.indexOf(term, from);
        if (at < 0) break;
        matches += 1;
        // The rest of this alert's text cannot count again.
        from = chunk.indexOf('\0', at + term.length) + 1;
      }
    }
    return matches;
  }
}

function weight(chunk: string): number {
  // eslint-disable-next-line no-control-regex
  return /[^\u0000-\u00ff]/.test(chunk) ? 2 * chunk.length : chunk.length;
}
