/*
 * A short summary for every operation that does not write its own (`@ApiOperation`), made of
 * its operation id `<controller>.<method>`: a method named by a verb alone takes the
 * controller's resource as its object ("servers.list" → "List servers", "apps.delete" →
 * "Delete app"); a method of several words reads as it is named ("keypairs.rotateSecret" →
 * "Rotate secret").
 */

const VERBS = new Set([
  'accept',
  'add',
  'approve',
  'create',
  'decline',
  'delete',
  'dismiss',
  'get',
  'list',
  'mint',
  'reject',
  'remove',
  'renew',
  'revoke',
  'show',
  'update',
  'verify',
]);

/** The lower-case words of a camelCase name ("rgwUsers" → ["rgw", "users"]). */
export function wordsOf(name: string): string[] {
  return (name.match(/[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])/g) ?? []).map((w) => w.toLowerCase());
}

/** The singular of an English plural, for resource names ("policies" → "policy"). */
export function singular(word: string): string {
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (/(ss|ch|sh|x)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** The summary of an operation id, e.g. "servers.list" → "List servers". */
export function summaryOf(operationId: string): string {
  const dot = operationId.lastIndexOf('.');
  const method = wordsOf(operationId.slice(dot + 1));
  const resource = wordsOf(operationId.slice(0, Math.max(dot, 0)));
  let words = method;
  if (method.length === 1 && VERBS.has(method[0]) && resource.length > 0) {
    const object =
      method[0] === 'list' ? resource : [...resource.slice(0, -1), singular(resource.at(-1)!)];
    words = [method[0], ...object];
  }
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
