import { describe, expect, it } from '@jest/globals';
import { simpleParser } from 'mailparser';
import { composeMime, mailbox } from './mime.js';

const date = new Date('2026-11-26T19:33:27Z');

function compose({ to, ...fields }: { subject: string; text: string; html?: string; to?: string }) {
  return composeMime({
    from: mailbox('Platform <platform@example.test>'),
    to: mailbox(to ?? 'ada@example.test'),
    messageId: '<0123abcd@example.test>',
    date,
    ...fields,
  });
}

describe('composeMime', () => {
  it('writes text and HTML as multipart/alternative that a mail client reads back as sent', async () => {
    const raw = compose({
      subject: 'Disk almost full',
      text: 'Alert firing.\n\nAcknowledge: https://cloud.example.test/alerts/ack/1?sig=ab\n',
      html: '<p>Alert <b>firing</b>.</p>',
    });
    const mail = await simpleParser(raw);

    expect(mail.subject).toBe('Disk almost full');
    expect(mail.from?.value).toEqual([{ name: 'Platform', address: 'platform@example.test' }]);
    expect(mail.to).toMatchObject({ value: [{ address: 'ada@example.test', name: '' }] });
    expect(mail.messageId).toBe('<0123abcd@example.test>');
    expect(mail.date?.toISOString()).toBe(date.toISOString());
    expect(mail.text).toBe(
      'Alert firing.\n\nAcknowledge: https://cloud.example.test/alerts/ack/1?sig=ab\n',
    );
    expect(mail.html).toBe('<p>Alert <b>firing</b>.</p>');
    expect(raw).toMatch(
      /^Content-Type: multipart\/alternative; boundary="--_platform-[0-9a-f]{16}-\d+"/m,
    );
    expect(raw).toContain('Content-Transfer-Encoding: 7bit');
    expect(raw).not.toMatch(/[^\r]\n/);
  });

  it('encodes a non-ASCII subject, long lines and non-ASCII text, and keeps them exact', async () => {
    const subject = `Störung: Festplatte fast voll auf db-1 — ${'sehr lange Betreffzeile '.repeat(4).trim()}`;
    const text = `Grüße aus Köln.\n${'x'.repeat(200)}\n.a line that starts with a dot\n`;
    const raw = compose({ subject, text });
    const mail = await simpleParser(raw);

    expect(mail.subject).toBe(subject);
    expect(mail.text).toBe(text);
    expect(raw).toContain('Content-Transfer-Encoding: quoted-printable');
    expect(raw).toContain('Content-Type: text/plain; charset=utf-8');
    for (const line of raw.split('\r\n')) expect(line.length).toBeLessThanOrEqual(78);
  });

  it('keeps ASCII in lines SMTP allows as 7bit, and encodes a line longer than 998', async () => {
    const link = `https://cloud.example.test/alerts/ack/${'a'.repeat(300)}`;
    const short = compose({ subject: 'Ack', text: `Acknowledge: ${link}\n` });
    expect(short).toContain('Content-Transfer-Encoding: 7bit');
    expect(short).toContain(link);
    expect((await simpleParser(short)).text).toBe(`Acknowledge: ${link}\n`);

    const long = compose({ subject: 'Ack', text: `${'b'.repeat(999)}\n` });
    expect(long).toContain('Content-Transfer-Encoding: quoted-printable');
    expect((await simpleParser(long)).text).toBe(`${'b'.repeat(999)}\n`);
  });

  it('quotes or encodes display names and gives the domain its ASCII form', () => {
    expect(mailbox('ada@example.test')).toEqual({
      header: 'ada@example.test',
      address: 'ada@example.test',
    });
    expect(mailbox('Ops, Platform <ops@example.test>').header).toBe(
      '"Ops, Platform" <ops@example.test>',
    );
    expect(mailbox('"Ops Team" <ops@example.test>').header).toBe('Ops Team <ops@example.test>');
    expect(mailbox('Jörg <jörg@bücher.example>')).toEqual({
      header: '=?UTF-8?Q?J=C3=B6rg?= <jörg@xn--bcher-kva.example>',
      address: 'jörg@xn--bcher-kva.example',
    });
  });
});
