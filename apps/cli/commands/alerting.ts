import type { components } from '@platform/api-client';
import { type Command, type CommandContext, parseLabels } from '../command.js';
import { UsageError } from '../errors.js';
import { type Column, fields } from '../output.js';
import { watchAlerts } from './watch-alerts.js';

type Schemas = components['schemas'];
type Alert = Schemas['Alert'];

const PROJECT = { project: { type: 'string' as const, short: 'p' } };
const projectPath = (context: CommandContext) => ({ project_id: context.option('project') });

export const ALERT_COLUMNS: Column<Alert>[] = [
  ...fields<Alert>('id', 'status', 'severity'),
  { heading: 'alertname', value: (alert) => alert.labels.alertname },
  ...fields<Alert>('acknowledged', 'starts_at'),
];

function oneOf<T extends string>(name: string, value: string | undefined, allowed: T[]) {
  if (value === undefined || (allowed as string[]).includes(value)) return value as T | undefined;
  throw new UsageError(`--${name} must be one of ${allowed.join(', ')}, not ${value}`);
}

const alertsList: Command = {
  name: 'alerts list',
  summary:
    "a project's alerts (--status firing|resolved, --acknowledged true|false); --watch lists again on each notification",
  options: {
    ...PROJECT,
    status: { type: 'string' },
    acknowledged: { type: 'string' },
    watch: { type: 'boolean', short: 'w' },
  },
  required: ['project'],
  run: async (context) => {
    const query = {
      status: oneOf('status', context.string('status'), ['firing', 'resolved']),
      acknowledged: oneOf('acknowledged', context.string('acknowledged'), ['true', 'false']),
    };
    const client = await context.client();
    const list = async () =>
      context.print(
        await context.data(
          client.GET('/projects/{project_id}/alerts', {
            params: { path: projectPath(context), query },
          }),
        ),
        ALERT_COLUMNS,
      );
    await list();
    if (context.values.watch === true) await watchAlerts(context, list);
  },
};

/** `alerts ack` and `alerts unack`: the alert as it is afterwards. */
function acknowledgement(verb: 'ack' | 'unack'): Command {
  return {
    name: `alerts ${verb}`,
    summary: verb === 'ack' ? 'acknowledge an alert' : "remove an alert's acknowledgements",
    options: PROJECT,
    required: ['project'],
    args: ['alert-id'],
    run: async (context) => {
      const client = await context.client();
      const params = { path: { ...projectPath(context), id: context.args[0] } };
      const path = '/projects/{project_id}/alerts/{id}/ack';
      const alert = await context.data(
        verb === 'ack' ? client.POST(path, { params }) : client.DELETE(path, { params }),
      );
      context.print(alert, ALERT_COLUMNS);
    },
  };
}

const alertsTest: Command = {
  name: 'alerts test',
  summary: "raise a test alert (labels from --route's matchers, or --labels k=v,...)",
  options: { ...PROJECT, route: { type: 'string' }, labels: { type: 'string' } },
  required: ['project'],
  run: async (context) => {
    const client = await context.client();
    const route = context.string('route');
    const labels = parseLabels(context.string('labels'));
    const alert = await context.data(
      client.POST('/projects/{project_id}/alerts/test', {
        params: { path: projectPath(context) },
        // The document types route_id loosely (a nullable union); it is the route's uuid.
        body: {
          ...(route === undefined ? {} : { route_id: route as unknown as Record<string, never> }),
          ...(labels === undefined ? {} : { labels }),
        },
      }),
    );
    context.print(alert, [...ALERT_COLUMNS, { heading: 'labels', value: (row) => row.labels }]);
  },
};

const routesList: Command = {
  name: 'routes list',
  summary: "a project's alert routes, by priority",
  options: PROJECT,
  required: ['project'],
  run: async (context) => {
    const client = await context.client();
    const routes = await context.data(
      client.GET('/projects/{project_id}/alert_routes', {
        params: { path: projectPath(context) },
      }),
    );
    context.print(routes, [
      ...fields<Schemas['AlertRouteResponseDto']>('id', 'priority', 'name', 'enabled'),
      {
        heading: 'matchers',
        value: (route) =>
          route.matchers.map((m) => `${m.label}${m.op === 'eq' ? '=' : '=~'}${m.value}`),
      },
    ]);
  },
};

const SILENCE_COLUMNS = fields<Schemas['SilenceResponseDto']>(
  'id',
  'alert_id',
  'active',
  'starts_at',
  'ends_at',
  'comment',
);

const silencesList: Command = {
  name: 'silences list',
  summary: "an alert's silences",
  options: PROJECT,
  required: ['project'],
  args: ['alert-id'],
  run: async (context) => {
    const client = await context.client();
    const silences = await context.data(
      client.GET('/projects/{project_id}/alerts/{alert_id}/silences', {
        params: { path: { ...projectPath(context), alert_id: context.args[0] } },
      }),
    );
    context.print(silences, SILENCE_COLUMNS);
  },
};

const silencesCreate: Command = {
  name: 'silences create',
  summary: 'silence an alert until --ends-at (an ISO 8601 time)',
  options: { ...PROJECT, 'ends-at': { type: 'string' }, comment: { type: 'string' } },
  required: ['project', 'ends-at', 'comment'],
  args: ['alert-id'],
  run: async (context) => {
    const client = await context.client();
    const silence = await context.data(
      client.POST('/projects/{project_id}/alerts/{alert_id}/silences', {
        params: { path: { ...projectPath(context), alert_id: context.args[0] } },
        body: { ends_at: context.option('ends-at'), comment: context.option('comment') },
      }),
    );
    context.print(silence, SILENCE_COLUMNS);
  },
};

export const ALERTING_COMMANDS = [
  alertsList,
  acknowledgement('ack'),
  acknowledgement('unack'),
  alertsTest,
  routesList,
  silencesList,
  silencesCreate,
];
