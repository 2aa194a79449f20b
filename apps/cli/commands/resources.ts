import type { components } from '@platform/api-client';
import type { Command, CommandContext } from '../command.js';
import { fields } from '../output.js';

type Schemas = components['schemas'];

const PROJECT = { project: { type: 'string' as const, short: 'p' } };
const inProject = (context: CommandContext) => ({
  params: { query: { project_id: context.option('project') } },
});

const rgwUsersList: Command = {
  name: 'rgw users list',
  summary: "a project's object storage (RGW) users",
  options: PROJECT,
  required: ['project'],
  run: async (context) => {
    const client = await context.client();
    const users = await context.data(client.GET('/rgw/users', inProject(context)));
    context.print(
      users,
      fields<Schemas['RgwUserSummaryResponse']>('id', 'name', 'uid', 'access_key', 'created_at'),
    );
  },
};

const appsList: Command = {
  name: 'apps list',
  summary: "a project's apps",
  options: PROJECT,
  required: ['project'],
  run: async (context) => {
    const client = await context.client();
    const apps = await context.data(client.GET('/apps', inProject(context)));
    context.print(apps, fields<Schemas['AppResponseDto']>('id', 'name', 'kind', 'status', 'url'));
  },
};

const serversList: Command = {
  name: 'servers list',
  summary: "a project's cloud servers",
  options: PROJECT,
  required: ['project'],
  run: async (context) => {
    const client = await context.client();
    const servers = await context.data(client.GET('/cloud/servers', inProject(context)));
    context.print(servers, [
      ...fields<(typeof servers)[number]>('id', 'name', 'status'),
      // Nova's flavor is an object whose fields vary with the microversion.
      { heading: 'flavor', value: (server) => server.flavor?.original_name ?? server.flavor?.id },
      { heading: 'created', value: (server) => server.created },
    ]);
  },
};

export const RESOURCE_COMMANDS = [rgwUsersList, appsList, serversList];
