/**
 * Texts held as a few long strings: joined and ended by NUL, which PostgreSQL text never
 * holds, so no match crosses from one text to the next. Never changes: adding gives a new
 * instance that shares the full chunks.
 */
class TextChunks {
  static readonly EMPTY = new TextChunks([], 0, 0);

  private constructor(
    private readonly chunks: readonly string[],
    readonly texts: number,
    /** Memory the chunks take, counting one byte per Latin-1 character and two otherwise. */
    readonly bytes: number,
  ) {}

  /** These and `texts`; the last chunk takes more until it has `chunkChars` characters. */
  add(texts: readonly string[], chunkChars: number): TextChunks {
    if (texts.length === 0) return this;
    const chunks = [...this.chunks];
    let bytes = this.bytes;
    let open = '';
    if (chunks.length > 0 && chunks[chunks.length - 1].length < chunkChars) {
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
      if (length >= chunkChars) close();
    }
    if (length > 0) close();
    return new TextChunks(chunks, this.texts + texts.length, bytes);
  }

  /** Texts containing `term` (non-empty, without NUL), each counted once. */
  count(term: string): number {
    let matches = 0;
    for (const chunk of this.chunks) {
      let from = 0;
      for (;;) {
        const at = chunk.indexOf(term, from);
        if (at < 0) break;
        matches += 1;
        // The rest of this text cannot count again.
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

/**
 * The search texts of one project's alerts as of one search generation. Counting the alerts
 * whose text contains a term is a run of `indexOf` calls over about a hundred bytes per alert:
 * a few milliseconds for 250,000 alerts, where PostgreSQL needs 50–150 ms to visit every match.
 *
 * They are the project's `alert_search` texts as of `generation`: the texts read, plus those
 * written since, less those replaced since (`alert_search_replaced`), which are kept apart
 * and counted off. An instance never changes.
 */
export class ProjectSearchTexts {
  /** Chunks grow to about this many characters; only the last one is copied on append. */
  static readonly CHUNK_CHARS = 1 << 20;

  private constructor(
    private readonly chunkChars: number,
    readonly generation: number,
    private readonly held: TextChunks,
    private readonly replaced: TextChunks,
  ) {}

  static of(
    generation: number,
    texts: readonly string[],
    chunkChars = ProjectSearchTexts.CHUNK_CHARS,
  ): ProjectSearchTexts {
    return new ProjectSearchTexts(
      chunkChars,
      generation,
      TextChunks.EMPTY.add(texts, chunkChars),
      TextChunks.EMPTY,
    );
  }

  /**
   * As of `generation`: these texts, plus `written` (texts written since), less `replaced`
   * (texts these hold that were replaced since).
   */
  append(
    generation: number,
    written: readonly string[],
    replaced: readonly string[] = [],
  ): ProjectSearchTexts {
    return new ProjectSearchTexts(
      this.chunkChars,
      generation,
      this.held.add(written, this.chunkChars),
      this.replaced.add(replaced, this.chunkChars),
    );
  }

  /** Alerts. */
  get alerts(): number {
    return this.held.texts - this.replaced.texts;
  }

  /** Texts held only to be counted off; reading the project afresh drops them. */
  get replacedTexts(): number {
    return this.replaced.texts;
  }

  /** Memory taken, counting one byte per Latin-1 character and two otherwise. */
  get bytes(): number {
    return this.held.bytes + this.replaced.bytes;
  }

  /** Alerts whose text contains `term` (non-empty, without NUL), each counted once. */
  count(term: string): number {
    return this.held.count(term) - this.replaced.count(term);
  }
}
