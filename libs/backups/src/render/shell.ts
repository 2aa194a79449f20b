const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * One POSIX shell word that stands for `value` exactly: left bare when it holds only characters
 * no shell treats specially, otherwise single-quoted with each `'` written as `'\''`.
 */
export function shellQuote(value: string): string {
  if (SAFE_WORD.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Shell text inserted as written, e.g. a variable expansion such as `"$snapshot_id"`. */
export interface RawWord {
  raw: string;
}

export const raw = (text: string): RawWord => ({ raw: text });

/** A command line: plain strings are quoted, raw words are kept. */
export function shellCommand(words: ReadonlyArray<string | RawWord>): string {
  return words.map((word) => (typeof word === 'string' ? shellQuote(word) : word.raw)).join(' ');
}
