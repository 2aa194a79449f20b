import type { TableOwnership } from '@platform/database';

/** The tables only escalation writes. */
export const ESCALATION_TABLES: TableOwnership = {
  library: 'escalation',
  tables: [
    'alert_acknowledgement',
    'escalation_chain',
    'escalation_due',
    'escalation_instance',
    'escalation_ledger',
    'escalation_page',
    'escalation_step',
    'insights_ack_channel_day',
    'insights_ack_day',
    'insights_ack_sample',
    'insights_alert_day',
    'insights_escalation_change',
    'insights_escalation_day',
    'insights_event_day',
    'insights_ledger_day',
  ],
  createdElsewhere: {
    // Created with the alerts (acknowledgements) and the routes (chains, which routes name);
    // only escalation writes them.
    alert_acknowledgement: 'alerting',
    escalation_chain: 'alerting',
  },
};
