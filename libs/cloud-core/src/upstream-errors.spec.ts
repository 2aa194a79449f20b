import { describe, expect, it } from '@jest/globals';
import { KubeApiError } from '@platform/kube';
import { KubeCluster } from './kube-cluster.js';
import { upstreamMessage, upstreamStatusError } from './upstream-errors.js';

describe('rule 4: upstream answers', () => {
  it.each([
    [404, 404, 'not_found', false],
    [409, 409, 'conflict', false],
    [400, 422, 'upstream_rejected', false],
    [422, 422, 'upstream_rejected', false],
    [401, 502, 'provider_auth_failed', false],
    [403, 502, 'provider_auth_failed', false],
    [500, 502, 'provider_unavailable', true],
    [503, 502, 'provider_unavailable', true],
  ])('upstream %i answers %i %s (retryable %s)', (upstream, status, code, retryable) => {
    const error = upstreamStatusError('openstack', upstream, { badRequest: { message: 'm' } });
    expect({ status: error.status, code: error.code, retryable: error.retryable }).toEqual({
      status,
      code,
      retryable,
    });
  });

  it("finds the provider's message in the error bodies of Nova, Neutron, Keystone, Octavia and Designate", () => {
    expect(upstreamMessage({ itemNotFound: { code: 404, message: 'nova' } })).toBe('nova');
    expect(upstreamMessage({ NeutronError: { type: 'X', message: 'neutron', detail: '' } })).toBe(
      'neutron',
    );
    expect(upstreamMessage({ error: { code: 401, message: 'keystone' } })).toBe('keystone');
    expect(upstreamMessage({ faultcode: 'Client', faultstring: 'octavia' })).toBe('octavia');
    expect(upstreamMessage({ code: 400, type: 'invalid', message: 'designate' })).toBe('designate');
    expect(upstreamMessage('plain text\n')).toBe('plain text');
    expect(upstreamMessage(undefined)).toBeUndefined();
  });
});

describe('KubeCluster', () => {
  const cluster = new KubeCluster('garden', 'GARDEN_KUBECONFIG', '/nonexistent/kubeconfig');

  it('answers 503 provider_not_configured when its variable is unset', async () => {
    const unset = new KubeCluster('garden', 'GARDEN_KUBECONFIG', null);
    expect(unset.configured).toBe(false);
    await expect(unset.run('shoots', () => Promise.resolve(1))).rejects.toMatchObject({
      status: 503,
      code: 'provider_not_configured',
      retryable: false,
    });
  });

  it.each([
    [404, 404, 'not_found'],
    [409, 409, 'conflict'],
    [422, 422, 'upstream_rejected'],
    [403, 502, 'provider_auth_failed'],
    [500, 502, 'provider_unavailable'],
  ])('maps the API server answering %i to %i %s', (upstream, status, code) => {
    const error = cluster.failure(new KubeApiError(upstream, 'GET /x: refused', 'Reason'));
    expect({ status: error.status, code: error.code }).toEqual({ status, code });
  });

  it('maps a kubeconfig file that cannot be read to a retryable 502, not a 500', async () => {
    await expect(cluster.run('shoots', () => Promise.resolve(1))).rejects.toMatchObject({
      status: 502,
      code: 'provider_unavailable',
      retryable: true,
    });
  });

  it('maps no answer (refused, timed out) to a retryable 502', () => {
    const error = cluster.failure(new Error('connect ECONNREFUSED 127.0.0.1:1'));
    expect({ status: error.status, code: error.code, retryable: error.retryable }).toEqual({
      status: 502,
      code: 'provider_unavailable',
      retryable: true,
    });
  });
});
