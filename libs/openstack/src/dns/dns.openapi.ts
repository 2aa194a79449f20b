import { BOOLEAN, INTEGER, NULLABLE_STRING, STRING, STRING_LIST } from '@platform/cloud-core';
import type { ErrorDoc } from '@platform/core';
import { RECORD_TYPES } from './dns-names.js';

/** The fields of a Designate zone clients rely on, and the platform's verification beside them. */
export const ZONE = {
  id: { type: 'string', format: 'uuid' },
  name: { type: 'string', description: 'with the final dot, e.g. `example.com.`' },
  email: STRING,
  ttl: INTEGER,
  serial: INTEGER,
  status: { type: 'string', description: 'PENDING, ACTIVE or ERROR' },
  action: { type: 'string', description: 'CREATE, UPDATE, DELETE or NONE' },
  description: NULLABLE_STRING,
  created_at: STRING,
  updated_at: NULLABLE_STRING,
  verification_token: {
    type: 'string',
    description: 'the value of the TXT record that verifies the zone; stable per zone',
  },
  verification_record: {
    type: 'string',
    description: 'where that TXT record goes: `_platform-verification.<zone name>`',
  },
  verified: BOOLEAN,
  verified_at: { type: 'string', format: 'date-time', nullable: true },
};
export const ZONE_REQUIRED = [
  'id',
  'name',
  'status',
  'verification_token',
  'verification_record',
  'verified',
  'verified_at',
];

/** The fields of a Designate record set clients rely on. */
export const RECORDSET = {
  id: { type: 'string', format: 'uuid' },
  zone_id: STRING,
  name: { type: 'string', description: 'absolute, e.g. `www.example.com.`' },
  type: {
    type: 'string',
    description: `one of ${RECORD_TYPES.join(', ')}, or SOA and NS of Designate`,
  },
  records: STRING_LIST,
  ttl: { type: 'integer', nullable: true, description: "null: the zone's" },
  status: { type: 'string', description: 'PENDING, ACTIVE or ERROR' },
  action: { type: 'string', description: 'CREATE, UPDATE, DELETE or NONE' },
  description: NULLABLE_STRING,
};
export const RECORDSET_REQUIRED = ['id', 'name', 'type', 'records'];

export const RESOLVER_UNAVAILABLE: ErrorDoc = [
  502,
  'provider_unavailable',
  'the DNS resolver did not answer in time, refused the query or failed (SERVFAIL); retryable',
];
