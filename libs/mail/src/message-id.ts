import { createHash, randomUUID } from 'node:crypto';
import { domainToASCII } from 'node:url';

/**
 * The left part of the Message-ID of a message with `messageKey`: a digest, so that any key
 * makes a valid id and the ids a key is made of do not travel in the header.
 */
export function messageIdLeft(messageKey: string): string {
  return createHash('sha256').update(messageKey).digest('hex').slice(0, 32);
}

/**
 * The Message-ID of a message from `from` (MAIL_FROM, "Name <address>" or a bare address):
 * derived from `messageKey` when there is one (the same key, the same id: a receiving MTA or
 * mail client takes a message sent again as the one it has), else random; on the sender's
 * domain in its ASCII form.
 */
export function messageIdOf(from: string, messageKey?: string): string {
  const address = /<([^>]*)>\s*$/.exec(from)?.[1] ?? from.trim();
  const domain = domainToASCII(address.slice(address.lastIndexOf('@') + 1)) || 'localhost';
  return `<${messageKey ? messageIdLeft(messageKey) : randomUUID()}@${domain}>`;
}
