import { createHash, randomUUID } from 'node:crypto';
import { domainToASCII } from 'node:url';
import addressparser from 'nodemailer/lib/addressparser';
import { encodeWords, foldLines, hasLongerLines, isPlainText } from 'nodemailer/lib/mime-funcs';
import { encode as qpEncode, wrap as qpWrap } from 'nodemailer/lib/qp';
import type { EmailMessage } from './email.js';

/** A parsed mailbox: the address goes into the SMTP envelope, both into the header. */
export interface Mailbox {
  name: string;
  address: string;
}

/** A message ready for the SMTP DATA command, and the envelope it travels in. */
export interface MimeMessage {
  envelope: { from: string; to: string[] };
  messageId: string;
  raw: string;
}

const LINE_LENGTH = 76;
const NEWLINES = /\r\n|\r|\n/g;
/** A lone address without display name, comment, quoting or group: nothing to parse. */
const BARE_ADDRESS = /^[^\s"<>()[\],;:@\\]+@[^\s"<>()[\],;:@\\]+$/;

/**
 * The mailboxes of an address list ("Ada <ada@example.test>, bob@example.test"), groups
 * flattened; throws when there is none.
 */
export function parseMailboxes(value: string): Mailbox[] {
  if (BARE_ADDRESS.test(value)) return [{ name: '', address: value }];
  const mailboxes = addressparser(value, { flatten: true })
    .filter((entry) => entry.address)
    .map((entry) => ({ name: entry.name ?? '', address: entry.address }));
  if (mailboxes.length === 0) throw new Error(`no e-mail address in "${value}"`);
  return mailboxes;
}

/** The address with an internationalised domain in its ASCII (punycode) form. */
function asciiAddress(address: string): string {
  const at = address.lastIndexOf('@');
  if (at < 0 || isPlainText(address)) return address;
  const domain = domainToASCII(address.slice(at + 1));
  return `${address.slice(0, at + 1)}${domain || address.slice(at + 1)}`;
}

function formatMailbox({ name, address }: Mailbox): string {
  const ascii = asciiAddress(address);
  if (!name) return ascii;
  const display = isPlainText(name)
    ? /^[\w ]*$/.test(name)
      ? name
      : `"${name.replace(/["\\]/g, '\\$&')}"`
    : encodeWords(name, 'Q', 52);
  return `${display} <${ascii}>`;
}

/** One header line, folded at 76 characters; line breaks in the value cannot inject headers. */
function header(key: string, value: string): string {
  const flat = value.replace(NEWLINES, ' ');
  const plain = isPlainText(flat);
  const line = `${key}: ${plain ? flat : encodeWords(flat, 'Q', 52)}`;
  return plain && line.length <= LINE_LENGTH ? line : foldLines(line, LINE_LENGTH);
}

/** A text part: 7bit when it is short-lined ASCII, quoted-printable otherwise. */
function textPart(contentType: string, content: string): { headers: string; body: string } {
  const normalized = content.replace(NEWLINES, '\r\n');
  if (isPlainText(normalized) && !hasLongerLines(normalized, LINE_LENGTH)) {
    return {
      headers: `Content-Type: ${contentType}; charset=utf-8\r\nContent-Transfer-Encoding: 7bit`,
      body: normalized,
    };
  }
  return {
    headers: `Content-Type: ${contentType}; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable`,
    body: qpWrap(qpEncode(Buffer.from(normalized, 'utf8')), LINE_LENGTH),
  };
}

/**
 * The left part of the Message-ID of a message with `messageKey`: a digest, so that any key
 * makes a valid id and the ids a key is made of do not travel in the header.
 */
export function messageIdLeft(messageKey: string): string {
  return createHash('sha256').update(messageKey).digest('hex').slice(0, 32);
}

/**
 * Builds the MIME text of an e-mail: a text/plain body, or text and HTML as
 * multipart/alternative. Headers are encoded (RFC 2047) and folded, bodies are 7bit or
 * quoted-printable, every line ends in CRLF; SMTP dot-stuffing is left to the connection.
 * The Message-ID is derived from `messageKey` when there is one (the same key, the same id: a
 * receiving MTA or mail client takes a message sent again as the one it has), else random.
 */
export function composeMime(
  from: Mailbox,
  message: EmailMessage,
  date: Date = new Date(),
): MimeMessage {
  const recipients = parseMailboxes(message.to);
  const domain = asciiAddress(from.address).split('@').pop() || 'localhost';
  const messageId = `<${message.messageKey ? messageIdLeft(message.messageKey) : randomUUID()}@${domain}>`;
  const head = [
    header('From', formatMailbox(from)),
    header('To', recipients.map(formatMailbox).join(', ')),
    ...(message.subject ? [header('Subject', message.subject)] : []),
    `Message-ID: ${messageId}`,
    `Date: ${date.toUTCString().replace(/GMT$/, '+0000')}`,
    'MIME-Version: 1.0',
  ];
  const text = textPart('text/plain', message.text);
  let raw: string;
  if (message.html === undefined || message.html === null) {
    // A lone body ends in one line break (none when empty), as nodemailer writes it.
    const body = text.body === '' || text.body.endsWith('\r\n') ? text.body : `${text.body}\r\n`;
    raw = `${head.join('\r\n')}\r\n${text.headers}\r\n\r\n${body}`;
  } else {
    const html = textPart('text/html', message.html);
    const boundary = `--_NmP-${randomUUID().replace(/-/g, '')}-Part_1`;
    raw =
      `${head.join('\r\n')}\r\nContent-Type: multipart/alternative;\r\n boundary="${boundary}"\r\n\r\n` +
      `--${boundary}\r\n${text.headers}\r\n\r\n${text.body}\r\n` +
      `--${boundary}\r\n${html.headers}\r\n\r\n${html.body}\r\n` +
      `--${boundary}--\r\n`;
  }
  return {
    envelope: {
      from: asciiAddress(from.address),
      to: recipients.map((r) => asciiAddress(r.address)),
    },
    messageId,
    raw,
  };
}
