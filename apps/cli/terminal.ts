import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import type { CliIo } from './command.js';

/**
 * Reads one line from stdin. A secret is not echoed: readline writes what is typed through an
 * output that drops everything after the question.
 */
async function prompt(question: string, { secret }: { secret: boolean }): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!muted) process.stderr.write(chunk);
      done();
    },
  });
  const reader = createInterface({ input: process.stdin, output, terminal: process.stdin.isTTY });
  try {
    const answer = reader.question(question);
    muted = secret;
    return await answer;
  } finally {
    if (secret) process.stderr.write('\n');
    reader.close();
  }
}

/** The CLI's input and output as a terminal user has them. */
export function terminalIo(): CliIo {
  return {
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    prompt,
    // Listening for SIGINT replaces Node's exit on Ctrl-C, so only a watch listens.
    interrupted: () => new Promise((resolve) => process.once('SIGINT', () => resolve())),
  };
}
