import { describe, expect, it } from '@jest/globals';
import { simpleParser } from 'mailparser';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { EmailMessage } from './email.js';
import { composeMime, messageIdLeft, parseMailboxes } from './mime.js';

const longLine = `${'word '.repeat(300)}end`;

const cases: Array<[string, string, EmailMessage]> = [
  [
    'plain text',
    'platform@example.test',
    { to: 'ada@example.test', subject: 'Verify', text: 'Details of Card expires soon' },
  ],
  [
    'text and HTML',
    'Platform <platform@example.test>',
    {
      to: 'ada@example.test',
      subject: 'Your notification digest: 2 updates',
      text: 'Hello Ada,\n\n* Invoice 1\n  Amount: 12.00 EUR\n',
      html: '<p>Hello Ada,</p><ul><li><strong>Invoice 1</strong></li></ul>',
    },
  ],
  [
    'non-ASCII subject, body and sender name',
    'Plattform Köln <platform@example.test>',
    {
      to: 'Zoë <zoe@example.test>',
      subject: 'Grüße: Ihre Rechnung über 12,00 € ist fällig — bitte prüfen Sie die Details 😀',
      text: 'Straße 1\nÜberweisung bis Freitag.\n',
      html: '<p>Straße 1<br>Überweisung</p>',
    },
  ],
  [
    'lines longer than 76 and 998 characters',
    'platform@example.test',
    { to: 'ada@example.test', subject: longLine, text: longLine, html: `<p>${longLine}</p>` },
  ],
  [
    'dots, CR LF input and trailing whitespace',
    '"Platform, Inc." <platform@example.test>',
    {
      to: 'ada@example.test',
      subject: 'Dots',
      text: '.\r\n..leading dots\r\n.\r\nend  \r\n',
      html: '<p>\n.\n</p>',
    },
  ],
  [
    'plain text ending in a line break',
    'platform@example.test',
    { to: 'ada@example.test', subject: 'Verify', text: 'line one\nline two\n' },
  ],
  [
    'plain non-ASCII text',
    'platform@example.test',
    { to: 'ada@example.test', subject: 'Straße', text: `Straße ${longLine}` },
  ],
  ['empty text', 'platform@example.test', { to: 'ada@example.test', subject: '', text: '' }],
];

async function parse(raw: string | Buffer) {
  const parsed = await simpleParser(raw);
  return {
    from: parsed.from?.value,
    to: Array.isArray(parsed.to) ? parsed.to.map((t) => t.value) : parsed.to?.value,
    subject: parsed.subject,
    text: parsed.text,
    html: parsed.html,
  };
}

describe('composeMime', () => {
  it.each(cases)(
    '%s reads back exactly as nodemailer composes it',
    async (_name, from, message) => {
      const mime = composeMime(parseMailboxes(from)[0], message);
      const reference = await new MailComposer({ from, ...message }).compile().build();

      expect(await parse(mime.raw)).toEqual(await parse(reference));
      for (const line of mime.raw.split('\r\n')) expect(line.length).toBeLessThanOrEqual(78);
      expect(mime.raw).not.toMatch(/[^\r]\n/);
    },
  );

  it('reads address lists, display names and groups', () => {
    expect(parseMailboxes('ada@example.test')).toEqual([{ name: '', address: 'ada@example.test' }]);
    expect(parseMailboxes('"Lovelace, Ada" <ada@example.test>, bob@example.test')).toEqual([
      { name: 'Lovelace, Ada', address: 'ada@example.test' },
      { name: '', address: 'bob@example.test' },
    ]);
    expect(parseMailboxes('team: ada@example.test, bob@example.test;')).toHaveLength(2);
    expect(() => parseMailboxes('nobody')).toThrow('no e-mail address');
  });

  it('names the envelope addresses and a unique message id', () => {
    const from = parseMailboxes('Platform <platform@example.test>')[0];
    const a = composeMime(from, { to: 'Ada <ada@example.test>', subject: 's', text: 't' });
    const b = composeMime(from, { to: 'ada@example.test', subject: 's', text: 't' });
    expect(a.envelope).toEqual({ from: 'platform@example.test', to: ['ada@example.test'] });
    expect(a.messageId).toMatch(/^<[0-9a-f-]+@example\.test>$/);
    expect(a.messageId).not.toBe(b.messageId);
  });

  it('derives the message id from a message key: the same key, the same id', () => {
    const from = parseMailboxes('Platform <platform@example.test>')[0];
    const page = { to: 'ada@example.test', subject: 's', text: 't', messageKey: 'page-1' };
    const first = composeMime(from, page, new Date('2026-01-01T00:00:00Z'));
    const again = composeMime(from, { ...page, text: 'other' }, new Date('2026-01-02T00:00:00Z'));
    const other = composeMime(from, { ...page, messageKey: 'page-2' });
    expect(first.messageId).toBe(`<${messageIdLeft('page-1')}@example.test>`);
    expect(first.messageId).toMatch(/^<[0-9a-f]{32}@example\.test>$/);
    expect(again.messageId).toBe(first.messageId);
    expect(first.raw).toContain(`\r\nMessage-ID: ${first.messageId}\r\n`);
    expect(other.messageId).not.toBe(first.messageId);
  });

  it('keeps line breaks in a subject from starting a new header', async () => {
    const from = parseMailboxes('platform@example.test')[0];
    const mime = composeMime(from, {
      to: 'ada@example.test',
      subject: 'Hello\r\nBcc: eve@example.test',
      text: 't',
    });
    const parsed = await simpleParser(mime.raw);
    expect(parsed.bcc).toBeUndefined();
    expect(parsed.subject).toBe('Hello Bcc: eve@example.test');
  });
});
