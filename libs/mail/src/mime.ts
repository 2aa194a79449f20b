import libmime from 'libmime';
import libqp from 'libqp';
import { randomBytes } from 'node:crypto';
import { domainToASCII } from 'node:url';

/** A mailbox as the envelope and the From header carry it. */
export interface Mailbox {
  /** The header form: `Name <address>`, the name encoded or quoted as RFC 5322 asks. */
  header: string;
  /** The envelope form: the address with its domain in ASCII. */
  address: string;
}

export interface MimeFields {
  from: Mailbox;
  to: Mailbox;
  subject: string;
  text: string;
  html?: string | null;
  messageId: string;
  date: Date;
}

const CRLF = '\r\n';
/** Characters a display name may hold without quotes (RFC 5322 atext plus spaces). */
const PHRASE = /^[\w !#$%&'*+\-/=?^`{|}~]*$/;
const ASCII = /^[\x20-\x7e]*$/;
/** Boundaries need only be absent from the parts: a per-process random prefix and a counter. */
const BOUNDARY_PREFIX = `--_platform-${randomBytes(8).toString('hex')}-`;
let boundaries = 0;

/**
 * `Name <address>` or a bare address as a mailbox: a non-ASCII name becomes an encoded word, a
 * name with specials is quoted, and a non-ASCII domain takes its ASCII (punycode) form, which
 * every SMTP server accepts.
 */
export function mailbox(value: string): Mailbox {
  const match = /^\s*(.*?)\s*<([^<>]+)>\s*$/.exec(oneLine(value));
  const rawName = (match?.[1] ?? '').replace(/^"(.*)"$/, '$1');
  const given = (match?.[2] ?? oneLine(value)).trim();
  const at = given.lastIndexOf('@');
  const domain = given.slice(at + 1);
  const address =
    at < 0 || ASCII.test(domain)
      ? given
      : `${given.slice(0, at)}@${domainToASCII(domain) || domain}`;
  if (!rawName) return { header: address, address };
  const encoded = libmime.encodeWords(rawName, 'Q', 52);
  const name =
    encoded !== rawName || PHRASE.test(rawName)
      ? encoded
      : `"${rawName.replace(/["\\]/g, '\\$&')}"`;
  return { header: `${name} <${address}>`, address };
}

/**
 * The RFC 5322 message of one e-mail: text, or text and HTML as multipart/alternative, each body
 * 7bit when it is ASCII in lines SMTP allows and quoted-printable otherwise, the subject as encoded
 * words where it is not ASCII. The encoders are libmime's and libqp's; the structure is the
 * small fixed one every message here has, so it is put together directly instead of through a
 * MIME tree built and streamed per message (see MailTransport for why that matters).
 */
export function composeMime(fields: MimeFields): string {
  const head = [
    `From: ${fields.from.header}`,
    `To: ${fields.to.header}`,
    libmime.foldLines(`Subject: ${libmime.encodeWords(oneLine(fields.subject), 'Q', 52)}`, 76),
    `Message-ID: ${fields.messageId}`,
    `Date: ${fields.date.toUTCString().replace(/GMT$/, '+0000')}`,
    'MIME-Version: 1.0',
  ].join(CRLF);
  if (!fields.html) return `${head}${CRLF}${part('text/plain', fields.text)}`;
  boundaries = (boundaries + 1) % Number.MAX_SAFE_INTEGER;
  const boundary = `${BOUNDARY_PREFIX}${boundaries}`;
  return [
    `${head}${CRLF}Content-Type: multipart/alternative; boundary="${boundary}"${CRLF}`,
    `--${boundary}${CRLF}${part('text/plain', fields.text)}`,
    `--${boundary}${CRLF}${part('text/html', fields.html)}`,
    `--${boundary}--${CRLF}`,
  ].join(CRLF);
}

/** A header value on one line: a line break in it would start a header of the sender's choice. */
function oneLine(value: string): string {
  return value.replace(/\r?\n|\r/g, ' ');
}

/** One body with its content headers (the line break after it belongs to what follows). */
function part(type: 'text/plain' | 'text/html', body: string): string {
  const plain = isSevenBit(body);
  // Line breaks in the canonical form first: quoted-printable keeps them as they are.
  const canonical = body.replace(/\r?\n/g, CRLF);
  const encoded = plain ? canonical : libqp.wrap(libqp.encode(Buffer.from(canonical)), 76);
  return [
    `Content-Type: ${type}; charset=utf-8`,
    `Content-Transfer-Encoding: ${plain ? '7bit' : 'quoted-printable'}`,
    '',
    encoded,
  ].join(CRLF);
}

/**
 * Whether `body` can travel as 7bit: printable ASCII, tabs and line breaks, in lines within
 * SMTP's limit of 998 (RFC 5321; 76 is only quoted-printable's own limit). Signed links, longer
 * than 76, thus stay whole and readable in the source.
 */
function isSevenBit(body: string): boolean {
  let column = 0;
  for (let i = 0; i < body.length; i += 1) {
    const code = body.charCodeAt(i);
    if (code === 0x0a || code === 0x0d) column = 0;
    else if ((code < 0x20 && code !== 0x09) || code > 0x7e || ++column > 998) return false;
  }
  return true;
}
