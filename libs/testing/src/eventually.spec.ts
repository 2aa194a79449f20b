import { describe, expect, it } from '@jest/globals';
import { eventually, expectEventually } from './eventually.js';

describe('eventually', () => {
  it('answers the first value that is not undefined, null or false, retrying throws', async () => {
    const answers: unknown[] = [undefined, null, false, new Error('not yet'), 'there'];
    const value = await eventually(
      () => {
        const next = answers.shift();
        if (next instanceof Error) throw next;
        return next;
      },
      { intervalMs: 1 },
    );
    expect(value).toBe('there');
  });

  it('with `until`, waits for an answer that satisfies it, undefined included', async () => {
    let n = 0;
    expect(
      await eventually(
        () => (n += 1),
        (v) => v >= 3,
        { intervalMs: 1 },
      ),
    ).toBe(3);
    expect(
      await eventually(
        () => undefined,
        (v) => v === undefined,
      ),
    ).toBeUndefined();
  });

  it('fails after the timeout, naming what it waited for and the last answer', async () => {
    await expect(
      eventually(
        () => ({ status: 'queued' }),
        (v) => v.status === 'sent',
        {
          timeoutMs: 30,
          intervalMs: 5,
          what: 'the delivery to be sent',
        },
      ),
    ).rejects.toThrow(
      'the delivery to be sent not reached within 30 ms (last answer: {"status":"queued"})',
    );
  });

  it('expectEventually retries the assertion and fails with its last failure', async () => {
    let n = 0;
    await expectEventually(() => expect((n += 1)).toBe(2), { intervalMs: 1 });
    await expect(
      expectEventually(() => expect('queued').toBe('sent'), { timeoutMs: 20, intervalMs: 5 }),
    ).rejects.toThrow(/not reached within 20 ms \(expect\(received\)\.toBe\(expected\)/);
  });
});
