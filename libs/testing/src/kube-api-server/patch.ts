import { KubeStatusError, badRequest } from './errors.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** RFC 7386 JSON merge patch; returns a new value, leaving `target` as it was. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}

interface Operation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: Json;
}

/** RFC 6902 JSON patch applied to `document` in place (pass a copy). */
export function applyJsonPatch(document: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) {
    throw badRequest('json patch must be an array of operations');
  }
  let root = document;
  for (const operation of operations as Operation[]) {
    if (!isObject(operation) || typeof operation.path !== 'string') {
      throw badRequest('invalid json patch operation');
    }
    switch (operation.op) {
      case 'add':
        root = add(root, operation.path, requireValue(operation));
        break;
      case 'remove':
        root = remove(root, operation.path);
        break;
      case 'replace':
        root = remove(root, operation.path);
        root = add(root, operation.path, requireValue(operation));
        break;
      case 'move': {
        const value = read(root, requireFrom(operation));
        root = remove(root, requireFrom(operation));
        root = add(root, operation.path, value);
        break;
      }
      case 'copy':
        root = add(root, operation.path, structuredClone(read(root, requireFrom(operation))));
        break;
      case 'test':
        if (!deepEqual(read(root, operation.path), operation.value)) {
          throw new KubeStatusError(
            422,
            'Invalid',
            `the server rejected our request due to an error in our request: testing value ${operation.path} failed`,
          );
        }
        break;
      default:
        throw badRequest(`unknown json patch operation "${String((operation as Operation).op)}"`);
    }
  }
  return root;
}

function requireValue(operation: Operation): unknown {
  if (!('value' in operation)) throw badRequest(`json patch ${operation.op} needs a value`);
  return structuredClone(operation.value);
}

function requireFrom(operation: Operation): string {
  if (typeof operation.from !== 'string') {
    throw badRequest(`json patch ${operation.op} needs "from"`);
  }
  return operation.from;
}

function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw badRequest(`invalid json pointer "${path}"`);
  return path
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

const missing = (path: string) =>
  new KubeStatusError(
    422,
    'Invalid',
    `the server rejected our request due to an error in our request: path ${path} does not exist`,
  );

function parentOf(root: unknown, path: string): { parent: unknown; key: string } {
  const tokens = pointer(path);
  const key = tokens.pop()!;
  let parent = root;
  for (const token of tokens) {
    parent = child(parent, token, path);
  }
  return { parent, key };
}

function child(container: unknown, token: string, path: string): unknown {
  if (Array.isArray(container)) {
    const index = Number(token);
    if (!Number.isInteger(index) || index < 0 || index >= container.length) throw missing(path);
    return container[index];
  }
  if (isObject(container) && token in container) return container[token];
  throw missing(path);
}

function read(root: unknown, path: string): unknown {
  return pointer(path).reduce((value, token) => child(value, token, path), root);
}

function add(root: unknown, path: string, value: unknown): unknown {
  if (path === '') return value;
  const { parent, key } = parentOf(root, path);
  if (Array.isArray(parent)) {
    const index = key === '-' ? parent.length : Number(key);
    if (!Number.isInteger(index) || index < 0 || index > parent.length) throw missing(path);
    parent.splice(index, 0, value);
  } else if (isObject(parent)) {
    parent[key] = value;
  } else throw missing(path);
  return root;
}

function remove(root: unknown, path: string): unknown {
  if (path === '') return undefined;
  const { parent, key } = parentOf(root, path);
  if (Array.isArray(parent)) {
    const index = Number(key);
    if (!Number.isInteger(index) || index < 0 || index >= parent.length) throw missing(path);
    parent.splice(index, 1);
  } else if (isObject(parent) && key in parent) {
    delete parent[key];
  } else throw missing(path);
  return root;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a).filter((key) => a[key] !== undefined);
    const otherKeys = Object.keys(b).filter((key) => b[key] !== undefined);
    return keys.length === otherKeys.length && keys.every((key) => deepEqual(a[key], b[key]));
  }
  return false;
}
