import type { ChainFields, StepFields } from '../chains/chains.repository.js';

/** A route of the presets, as stored (matchers empty: only the severity threshold decides). */
export interface PresetRoute {
  name: string;
  priority: number;
  /** whether the route opens the preset chain */
  escalates: boolean;
  min_severity_for_notification: 'critical' | null;
}

/** Seconds between the first page (in-app and e-mail) and the phone call. */
export const PRESET_PHONE_DELAY_SECONDS = 300;

/**
 * The default escalation chain: the organization admins are paged in-app and by e-mail at
 * once, called five minutes later, and the whole chain runs twice more while nobody answers;
 * an acknowledged escalation restarts after 30 minutes if the alert still fires.
 */
export const PRESET_CHAIN: ChainFields = {
  name: 'Page the organization admins',
  description:
    'Default escalation: the organization admins are paged in-app and by e-mail at once, then called after five minutes; the chain runs twice more while nobody acknowledges, and restarts 30 minutes after an acknowledgement while the alert still fires.',
  re_escalation_after: 1800,
  repeats: 2,
};

export const PRESET_STEPS: StepFields[] = [
  {
    delay_seconds: 0,
    target_type: 'org_admins',
    target_roster_id: null,
    target_member_id: null,
    target_role: null,
    channels: ['in_app', 'email'],
  },
  {
    delay_seconds: PRESET_PHONE_DELAY_SECONDS,
    target_type: 'org_admins',
    target_roster_id: null,
    target_member_id: null,
    target_role: null,
    channels: ['phone'],
  },
];

/**
 * Critical alerts escalate through the chain; every other alert notifies the organization
 * admins in-app (the catch-all, evaluated last). Priorities leave room for routes in between.
 */
export const PRESET_ROUTES: PresetRoute[] = [
  {
    name: 'Critical alerts',
    priority: 100,
    escalates: true,
    min_severity_for_notification: 'critical',
  },
  {
    name: 'All other alerts',
    priority: 1000,
    escalates: false,
    min_severity_for_notification: null,
  },
];
