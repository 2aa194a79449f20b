import { describe, expect, it } from '@jest/globals';
import { SnakeNamingStrategy } from './snake-naming.strategy.js';

describe('SnakeNamingStrategy', () => {
  const naming = new SnakeNamingStrategy();

  it('names tables and columns in snake_case', () => {
    expect(naming.tableName('NotificationPreference', undefined)).toBe('notification_preference');
    expect(naming.columnName('createdAt', undefined, [])).toBe('created_at');
    expect(naming.columnName('lastUsedAt', undefined, ['token'])).toBe('token_last_used_at');
    expect(naming.columnName('apiURLValue', undefined, [])).toBe('api_url_value');
  });

  it('keeps explicit names', () => {
    expect(naming.tableName('Account', 'accounts')).toBe('accounts');
    expect(naming.columnName('x', 'custom_name', [])).toBe('custom_name');
  });

  it('names join columns after the relation and the referenced column', () => {
    expect(naming.joinColumnName('organization', 'id')).toBe('organization_id');
  });
});
