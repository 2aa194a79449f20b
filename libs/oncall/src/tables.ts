import type { TableOwnership } from '@platform/database';

/** The tables only oncall writes. */
export const ONCALL_TABLES: TableOwnership = {
  library: 'oncall',
  tables: [
    'on_call_override',
    'on_call_roster',
    'on_call_roster_member',
    'on_call_roster_phone_contact',
    'on_call_rotation',
  ],
  createdElsewhere: {
    // Rosters came with the routes (which name them) and the escalation migrations, before
    // they moved to this library.
    on_call_roster: 'alerting',
    on_call_override: 'escalation',
    on_call_roster_member: 'escalation',
    on_call_roster_phone_contact: 'escalation',
    on_call_rotation: 'escalation',
  },
};
