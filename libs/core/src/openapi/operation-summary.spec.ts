import { describe, expect, it } from '@jest/globals';
import { singular, summaryOf, wordsOf } from './operation-summary.js';

describe('operation summaries', () => {
  it.each([
    ['servers.list', 'List servers'],
    ['apps.delete', 'Delete app'],
    ['rgwUsers.show', 'Show rgw user'],
    ['maintenanceWindows.create', 'Create maintenance window'],
    ['securityGroups.update', 'Update security group'],
    ['featureRequests.approve', 'Approve feature request'],
    ['ingestTokens.mint', 'Mint ingest token'],
    ['organizations.listOrganizations', 'List organizations'],
    ['webhooks.rotateSigningSecret', 'Rotate signing secret'],
    ['notificationCenter.unreadCount', 'Unread count'],
    ['signup.login', 'Login'],
  ])('%s → %s', (operationId, summary) => {
    expect(summaryOf(operationId)).toBe(summary);
  });

  it('splits camelCase names, acronyms kept together', () => {
    expect(wordsOf('rotateSigningSecret')).toEqual(['rotate', 'signing', 'secret']);
    expect(wordsOf('listVPNGateways')).toEqual(['list', 'vpn', 'gateways']);
  });

  it('makes plurals singular', () => {
    expect(['policies', 'addresses', 'switches', 'boxes', 'users', 'access'].map(singular)).toEqual(
      ['policy', 'address', 'switch', 'box', 'user', 'access'],
    );
  });
});
