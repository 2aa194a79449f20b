import { webhooksValidation } from '../webhooks-exception.js';

/** The registry event the receive route acts on (1-platform-control-api.md, Events). */
export const PUSH_ARTIFACT = 'PUSH_ARTIFACT';

/** An image reference split up: `registry/namespace/repository`, and its tag and digest. */
export interface ImageReference {
  repository: string;
  tag: string | null;
  digest: string | null;
}

/** What a valid inbound event asks for. */
export type InboundEvent =
  | { kind: 'other'; type: string }
  | {
      kind: 'push';
      type: typeof PUSH_ARTIFACT;
      resourceUrl: string;
      reference: ImageReference;
      digest: string;
    };

export const MAX_RESOURCE_URL_LENGTH = 1024;
/** OCI digests the platform pins: sha256 or sha512, lower-case hex. */
const DIGEST = /^(?:sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})$/;
/** The Docker tag grammar. */
const TAG = /^[\w][\w.-]{0,127}$/;

type FieldError = { field: string; messages: string[] };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `registry/namespace/repository:tag` (a `@digest` suffix allowed) as its parts; null when it is
 * no image reference at all. The tag is what follows the last `:` after the last `/`, so a
 * registry port (`registry:5000/…`) is never taken for one. A reference without a tag is
 * valid but matches no app, as apps name their image by tag.
 */
export function parseImageReference(value: string): ImageReference | null {
  if (value.length === 0 || value.length > MAX_RESOURCE_URL_LENGTH || /\s/.test(value)) return null;
  let rest = value;
  let digest: string | null = null;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) return null;
  }
  const slash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  let tag: string | null = null;
  if (colon > slash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) return null;
  }
  // At least a registry and a repository, none of the path segments empty.
  if (slash <= 0 || rest.split('/').some((segment) => segment === '')) return null;
  return { repository: rest, tag, digest };
}

/**
 * Validates an inbound event. Any event with a string `type` is accepted; only PUSH_ARTIFACT is
 * checked further, as the spec describes it: `event_data.resources` a non-empty array whose
 * first item has a digest and a resource_url (the fields that decide what is reconciled), and
 * the optional fields of the right type when present. Throws 422 `validation_failed` naming
 * every failing field.
 */
export function parseInboundEvent(body: unknown): InboundEvent {
  if (!isObject(body) || typeof body.type !== 'string' || body.type === '')
    throw webhooksValidation([{ field: 'type', messages: ['type must be a non-empty string'] }]);
  if (body.type !== PUSH_ARTIFACT) return { kind: 'other', type: body.type };

  const errors: FieldError[] = [];
  const fail = (field: string, message: string) => errors.push({ field, messages: [message] });
  if (
    body.occur_at !== undefined &&
    !(Number.isSafeInteger(body.occur_at) && (body.occur_at as number) >= 0)
  )
    fail('occur_at', 'occur_at must be a Unix time in seconds (a non-negative integer)');
  if (body.operator !== undefined && typeof body.operator !== 'string')
    fail('operator', 'operator must be a string');

  const data = body.event_data;
  if (!isObject(data)) {
    fail('event_data', 'event_data must be an object');
    throw webhooksValidation(errors);
  }
  const repository = data.repository;
  if (repository !== undefined) {
    if (!isObject(repository)) fail('event_data.repository', 'repository must be an object');
    else
      for (const key of ['name', 'namespace', 'repo_full_name'])
        if (repository[key] !== undefined && typeof repository[key] !== 'string')
          fail(`event_data.repository.${key}`, `${key} must be a string`);
  }
  const resources = data.resources;
  if (!Array.isArray(resources) || resources.length === 0) {
    fail('event_data.resources', 'resources must be a non-empty array');
    throw webhooksValidation(errors);
  }
  const first: unknown = resources[0];
  if (!isObject(first)) {
    fail('event_data.resources.0', 'each resource must be an object');
    throw webhooksValidation(errors);
  }
  const digest = first.digest;
  if (typeof digest !== 'string' || !DIGEST.test(digest))
    fail('event_data.resources.0.digest', 'digest must be sha256:<64 hex> or sha512:<128 hex>');
  if (first.tag !== undefined && typeof first.tag !== 'string')
    fail('event_data.resources.0.tag', 'tag must be a string');
  const resourceUrl = first.resource_url;
  const reference = typeof resourceUrl === 'string' ? parseImageReference(resourceUrl) : null;
  if (!reference)
    fail(
      'event_data.resources.0.resource_url',
      'resource_url must be an image reference registry/namespace/repository:tag',
    );
  if (errors.length > 0) throw webhooksValidation(errors);
  return {
    kind: 'push',
    type: PUSH_ARTIFACT,
    resourceUrl: resourceUrl as string,
    reference: reference!,
    digest: digest as string,
  };
}
