import { insertAlertEvents } from '@platform/alerting';
import { insertDeliveries, insertNotifications } from '@platform/notifications';
import { PAGE_CATEGORY, pageKeySql, pageNotificationPayload } from '../paging/page-notification.js';

/**
 * What one batch of steps did: how many due rows it took, how many of their steps ran (the
 * others have targets not resolved yet), the pages written, when the next steps are due.
 */
export interface StepsRun {
  locked: number;
  ran: number;
  /** The in-app pages written without their notification (see NotifiedPage), apart. */
  in_app_page_ids: string[];
  /** The in-app pages written with their notification. */
  notified: NotifiedPage[];
  /** The other pages written. */
  page_ids: string[];
  next_run_ats: Date[];
}

/** An in-app page the step statement notified, with the notification it wrote. */
export interface NotifiedPage {
  page_id: string;
  /** When the page's step was due. */
  due_at: string;
  notification: {
    id: string;
    account_id: string;
    organization_id: string;
    organization_name: string;
    payload: Record<string, unknown>;
  };
}

/** The key of a step's target in an organization (see DueTarget). */
export const targetKey = (organization: string, step: string) =>
  `concat_ws('/', ${organization}, ${step} ->> 'target_type',
     coalesce(${step} ->> 'target_roster_id', ''), coalesce(${step} ->> 'target_member_id', ''),
     coalesce(${step} ->> 'target_role', ''))`;

/**
 * Runs a batch of due steps in one statement (one round trip, one commit): locks the first $2
 * due rows (`FOR UPDATE SKIP LOCKED`, so concurrent runners split the work; the due index
 * alone decides which), runs those of instances whose alert resolved or whose target is among
 * the resolved ones ($3) and leaves the others due, writes the pages of the firing ones (one
 * per recipient ($4..$7) and channel; contacts by phone and SMS only), moves each due row on
 * to the next step (due its delay after this one was due), or deletes it when the escalation
 * ends, and writes the instance only when it ends (exhausted, or resolved with its alert) or
 * starts another pass, recording exhaustion on the timeline. Each instance is probed by key: a
 * hash of the instance table would cost the whole table per batch. SMS reply codes take their
 * digits from gen_random_uuid(), which draws on the strong random source.
 *
 * An in-app page of an account whose rules let its notification through in the step's
 * organization ($9: decided as notifyEach decides, see EscalationEngine) gets that
 * notification in the same statement: in a burst, the person's notification is committed with
 * the page, and needs no delivery job, claim or second statement (see StepNotifications). The
 * other in-app pages (a rule withholds them) go to the page jobs, which record why.
 */
export const RUN_STEPS = {
  name: 'escalation-run-steps',
  text: `
  WITH locked AS MATERIALIZED (
    SELECT instance_id, due_at, step_index FROM escalation_due
     WHERE due_at <= $1
     ORDER BY due_at
     LIMIT $2
     FOR UPDATE SKIP LOCKED
  ), claimed AS MATERIALIZED (
    SELECT i.id, i.project_id, i.alert_id, a.status = 'firing' AS firing, i.generation,
           i.repeat_count, d.step_index, d.due_at, s.step -> 'channels' AS channels, k.target_key,
           d.step_index + 1 < jsonb_array_length(c.steps) AS has_next,
           i.repeat_count < (i.chain_snapshot ->> 'repeats')::int AS has_pass,
           (c.steps -> (d.step_index + 1) ->> 'delay_seconds')::int AS next_delay,
           (c.steps -> 0 ->> 'delay_seconds')::int AS first_delay,
           p.organization_id, a.severity, a.labels ->> 'alertname' AS alertname,
           a.annotations ->> 'summary' AS summary
      FROM locked d
      CROSS JOIN LATERAL (SELECT * FROM escalation_instance i WHERE i.id = d.instance_id OFFSET 0) i
      JOIN alert a ON a.id = i.alert_id
      JOIN project p ON p.id = i.project_id
      -- OFFSET 0 keeps each extraction from the snapshot evaluated once per row.
      CROSS JOIN LATERAL (SELECT i.chain_snapshot -> 'steps' AS steps OFFSET 0) c
      CROSS JOIN LATERAL (SELECT c.steps -> d.step_index AS step OFFSET 0) s
      CROSS JOIN LATERAL (SELECT ${targetKey('p.organization_id', 's.step')} AS target_key OFFSET 0) k
     WHERE i.state = 'active' AND (a.status <> 'firing' OR k.target_key = ANY ($3::text[]))
  ), moved AS MATERIALIZED (
    SELECT id, alert_id, project_id,
           CASE WHEN NOT firing THEN 'resolved' WHEN has_next OR has_pass THEN 'active'
                ELSE 'exhausted' END AS state,
           firing AND NOT has_next AND has_pass AS next_pass,
           CASE WHEN firing AND has_next THEN step_index + 1 WHEN firing AND has_pass THEN 0
                ELSE step_index END AS step_index,
           CASE WHEN firing AND has_next THEN due_at + make_interval(secs => next_delay)
                WHEN firing AND has_pass THEN due_at + make_interval(secs => first_delay)
                END AS next_run_at
      FROM claimed
  ), recipient AS (
    SELECT * FROM unnest($4::text[], $5::uuid[], $6::text[], $7::text[], $9::boolean[])
      AS r (target_key, account_id, contact_label, phone_number, notify_in_app)
  ), paged AS MATERIALIZED (
    -- The pages with their ids drawn here, so that what each page writes comes from this one
    -- row without a join (the planner, going by statistics a burst has outrun, sizes every CTE
    -- at one row and would compare each page with each other one).
    SELECT gen_random_uuid() AS id, c.id AS instance_id, c.project_id, c.alert_id, c.generation,
           c.repeat_count, c.step_index, c.due_at, ch.channel, r.account_id, r.contact_label,
           CASE WHEN ch.channel IN ('phone', 'sms') THEN r.phone_number END AS phone_number,
           CASE WHEN ch.channel = 'sms' THEN (100000 + ('x' || left(replace(
             gen_random_uuid()::text, '-', ''), 8))::bit(32)::bigint % 900000)::text
             END AS reply_code,
           CASE WHEN ch.channel = 'in_app' AND r.notify_in_app THEN gen_random_uuid()
             END AS notification_id,
           c.organization_id, c.severity, c.alertname, c.summary
      FROM claimed c
      JOIN recipient r ON r.target_key = c.target_key
      CROSS JOIN LATERAL jsonb_array_elements_text(c.channels) AS ch (channel)
     WHERE c.firing AND (r.account_id IS NOT NULL OR ch.channel IN ('phone', 'sms'))
  ), pages AS (
    INSERT INTO escalation_page
      (id, instance_id, project_id, alert_id, generation, repeat_count, step_index, channel,
       account_id, contact_label, phone_number, reply_code, created_at)
    SELECT id, instance_id, project_id, alert_id, generation, repeat_count, step_index, channel,
           account_id, contact_label, phone_number, reply_code, $1
      FROM paged
  ), notice AS MATERIALIZED (
    SELECT id AS page_id, due_at, notification_id, account_id, organization_id,
           ${pageNotificationPayload({
             alertId: 'alert_id',
             instanceId: 'instance_id',
             stepIndex: 'step_index',
             severity: 'severity',
             alertname: 'alertname',
             summary: 'summary',
             projectId: 'project_id',
           })} AS payload
      FROM paged WHERE notification_id IS NOT NULL
  ), notified AS (
    -- The keys are new pages': nothing is there to conflict with, every notice is written.
    ${insertNotifications(`
    SELECT notification_id, account_id, organization_id, '${PAGE_CATEGORY}', '${PAGE_CATEGORY}',
           payload, $1, ${pageKeySql('page_id')}
      FROM notice`)}
  ), page_records AS (
    -- Each page's delivery record, pending from the step's due time, in the same statement.
    ${insertDeliveries(`
    SELECT id, 'escalation_page', channel, 'pending', NULL::text, $1::timestamptz, due_at
      FROM paged`)}
  ), instances AS (
    UPDATE escalation_instance i
       SET state = m.state, repeat_count = i.repeat_count + m.next_pass::int,
           exhausted_at = CASE WHEN m.state = 'exhausted' THEN $1::timestamptz END,
           resolved_at = CASE WHEN m.state = 'resolved' THEN $1::timestamptz END,
           updated_at = $1
      FROM moved m WHERE i.id = m.id AND (m.state <> 'active' OR m.next_pass)
  ), rescheduled AS (
    UPDATE escalation_due d SET due_at = m.next_run_at, step_index = m.step_index
      FROM moved m WHERE d.instance_id = m.id AND m.state = 'active'
  ), finished AS (
    DELETE FROM escalation_due d USING moved m WHERE d.instance_id = m.id AND m.state <> 'active'
  ), exhausted AS (
    ${insertAlertEvents(`
    SELECT alert_id, project_id, $8::text, jsonb_build_object('escalation_instance_id', id), $1
      FROM moved WHERE state = 'exhausted'`)}
  )
  SELECT (SELECT count(*) FROM locked)::int AS locked, (SELECT count(*) FROM claimed)::int AS ran,
         -- One comma-separated string: the driver parses a text array character by character,
         -- which for a thousand ids costs the worker more than the rest of the batch.
         coalesce((SELECT string_agg(id::text, ',') FROM paged
                    WHERE channel = 'in_app' AND notification_id IS NULL), '')
           AS in_app_page_ids,
         coalesce((SELECT json_agg(json_build_object(
                            'page_id', page_id, 'due_at', due_at,
                            'notification', json_build_object(
                              'id', notification_id, 'account_id', account_id,
                              'organization_id', organization_id,
                              'organization_name',
                              (SELECT o.name FROM organization o WHERE o.id = organization_id),
                              'payload', payload)))
                     FROM notice),
                  '[]') AS notified,
         coalesce((SELECT string_agg(id::text, ',') FROM paged WHERE channel <> 'in_app'), '')
           AS page_ids,
         coalesce((SELECT array_agg(DISTINCT next_run_at) FROM moved WHERE state = 'active'),
                  '{}') AS next_run_ats`,
};
