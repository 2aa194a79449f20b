import { describe, expect, it } from '@jest/globals';
import { parseImageReference, parseInboundEvent } from './push-event.js';

const DIGEST = `sha256:${'ab'.repeat(32)}`;

describe('parseImageReference', () => {
  it('splits registry/namespace/repository:tag, a registry port never taken for a tag', () => {
    expect(parseImageReference('reg.example.com/acme/shop:v1.2')).toEqual({
      repository: 'reg.example.com/acme/shop',
      tag: 'v1.2',
      digest: null,
    });
    expect(parseImageReference('reg.example.com:5000/acme/shop:latest')).toEqual({
      repository: 'reg.example.com:5000/acme/shop',
      tag: 'latest',
      digest: null,
    });
    expect(parseImageReference('reg.example.com:5000/acme/shop')).toEqual({
      repository: 'reg.example.com:5000/acme/shop',
      tag: null,
      digest: null,
    });
    expect(parseImageReference(`reg.example.com/acme/shop@${DIGEST}`)).toEqual({
      repository: 'reg.example.com/acme/shop',
      tag: null,
      digest: DIGEST,
    });
  });

  it('refuses what is no image reference', () => {
    for (const value of [
      '',
      'shop:v1',
      '/acme/shop:v1',
      'reg//shop:v1',
      'reg/acme/shop:',
      'reg/acme/shop:-bad',
      'reg/acme/shop:v1 extra',
      'reg/acme/shop@sha256:short',
      `reg/${'x'.repeat(1100)}:v1`,
    ])
      expect({ value, parsed: parseImageReference(value) }).toEqual({ value, parsed: null });
  });
});

describe('parseInboundEvent', () => {
  const push = (resource: Record<string, unknown>) => ({
    type: 'PUSH_ARTIFACT',
    event_data: { resources: [resource] },
  });

  it('takes the first resource of a push and leaves other types alone', () => {
    expect(
      parseInboundEvent(push({ digest: DIGEST, resource_url: 'reg.example.com/acme/shop:v1' })),
    ).toEqual({
      kind: 'push',
      type: 'PUSH_ARTIFACT',
      resourceUrl: 'reg.example.com/acme/shop:v1',
      reference: { repository: 'reg.example.com/acme/shop', tag: 'v1', digest: null },
      digest: DIGEST,
    });
    expect(parseInboundEvent({ type: 'SCANNING_COMPLETED' })).toEqual({
      kind: 'other',
      type: 'SCANNING_COMPLETED',
    });
  });

  it('names every failing field', () => {
    const fields = (body: unknown) => {
      try {
        parseInboundEvent(body);
      } catch (error) {
        return (error as { details: { fields: Array<{ field: string }> } }).details.fields.map(
          (f) => f.field,
        );
      }
      return [];
    };
    expect(fields(null)).toEqual(['type']);
    expect(fields({ type: '' })).toEqual(['type']);
    expect(fields({ type: 'PUSH_ARTIFACT', occur_at: -1 })).toEqual(['occur_at', 'event_data']);
    expect(
      fields({
        type: 'PUSH_ARTIFACT',
        event_data: { repository: { name: 1 }, resources: [{ digest: 'x', resource_url: 'y' }] },
      }),
    ).toEqual([
      'event_data.repository.name',
      'event_data.resources.0.digest',
      'event_data.resources.0.resource_url',
    ]);
  });
});
