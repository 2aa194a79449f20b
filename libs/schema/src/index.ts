import { ALERTING_MIGRATIONS, ALERTING_TABLES } from '@platform/alerting';
import { AUDIT_MIGRATIONS, AUDIT_TABLES } from '@platform/audit';
import { CAPABILITIES_MIGRATIONS, CAPABILITIES_TABLES } from '@platform/capabilities';
import { inMigrationOrder, type TableOwnership } from '@platform/database';
import { ESCALATION_MIGRATIONS, ESCALATION_TABLES } from '@platform/escalation';
import { IDENTITY_MIGRATIONS, IDENTITY_TABLES } from '@platform/identity';
import { NOTIFICATIONS_MIGRATIONS, NOTIFICATIONS_TABLES } from '@platform/notifications';
import { OBJECT_STORAGE_MIGRATIONS, OBJECT_STORAGE_TABLES } from '@platform/object-storage';
import { ONCALL_MIGRATIONS, ONCALL_TABLES } from '@platform/oncall';
import { OPENSTACK_MIGRATIONS, OPENSTACK_TABLES } from '@platform/openstack';
import { WEBHOOKS_MIGRATIONS, WEBHOOKS_TABLES } from '@platform/webhooks';

/*
 * The whole schema, composed from the libraries that own its parts. It lives above every
 * domain library (libs/database sits below them and knows none): `apps/migrate`, the test
 * database and the benches take their migrations from here.
 */

/** Every schema migration, in the order they run. */
export const MIGRATIONS = inMigrationOrder(
  IDENTITY_MIGRATIONS,
  NOTIFICATIONS_MIGRATIONS,
  CAPABILITIES_MIGRATIONS,
  ALERTING_MIGRATIONS,
  ONCALL_MIGRATIONS,
  ESCALATION_MIGRATIONS,
  AUDIT_MIGRATIONS,
  OPENSTACK_MIGRATIONS,
  OBJECT_STORAGE_MIGRATIONS,
  WEBHOOKS_MIGRATIONS,
);

/** Who owns each table: only the owner writes it (checked by table-ownership.spec.ts). */
export const TABLE_OWNERSHIP: readonly TableOwnership[] = [
  IDENTITY_TABLES,
  NOTIFICATIONS_TABLES,
  CAPABILITIES_TABLES,
  ALERTING_TABLES,
  ONCALL_TABLES,
  ESCALATION_TABLES,
  AUDIT_TABLES,
  OPENSTACK_TABLES,
  OBJECT_STORAGE_TABLES,
  WEBHOOKS_TABLES,
];
