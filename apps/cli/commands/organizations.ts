import type { components } from '@platform/api-client';
import type { Command } from '../command.js';
import { fields } from '../output.js';

type Schemas = components['schemas'];

const ORG = { org: { type: 'string' as const, short: 'O' } };

const orgsList: Command = {
  name: 'orgs list',
  summary: 'the organizations you belong to, with your role',
  run: async (context) => {
    const client = await context.client();
    const organizations = await context.data(client.GET('/organizations'));
    context.print(organizations, fields<Schemas['OrganizationResponseDto']>('id', 'name', 'role'));
  },
};

const orgsCreate: Command = {
  name: 'orgs create',
  summary: 'create an organization; you become its admin',
  options: { name: { type: 'string' } },
  required: ['name'],
  run: async (context) => {
    const client = await context.client();
    const organization = await context.data(
      client.POST('/organizations', { body: { name: context.option('name') } }),
    );
    context.print(organization, fields<Schemas['OrganizationResponseDto']>('id', 'name', 'role'));
  },
};

const PROJECT_COLUMNS = fields<Schemas['ProjectResponseDto']>(
  'id',
  'name',
  'organization_id',
  'created_at',
);

const projectsList: Command = {
  name: 'projects list',
  summary: "an organization's projects",
  options: ORG,
  required: ['org'],
  run: async (context) => {
    const client = await context.client();
    const projects = await context.data(
      client.GET('/organizations/{org_id}/projects', {
        params: { path: { org_id: context.option('org') } },
      }),
    );
    context.print(projects, PROJECT_COLUMNS);
  },
};

const projectsCreate: Command = {
  name: 'projects create',
  summary: 'create a project in an organization',
  options: { ...ORG, name: { type: 'string' } },
  required: ['org', 'name'],
  run: async (context) => {
    const client = await context.client();
    const project = await context.data(
      client.POST('/organizations/{org_id}/projects', {
        params: { path: { org_id: context.option('org') } },
        body: { name: context.option('name') },
      }),
    );
    context.print(project, PROJECT_COLUMNS);
  },
};

const TOKEN_COLUMNS = fields<Schemas['TokenResponseDto']>(
  'token_id',
  'name',
  'kind',
  'scopes',
  'last4',
  'project_id',
  'last_used_at',
);

const tokensList: Command = {
  name: 'tokens list',
  summary: 'your API tokens (never their secrets)',
  run: async (context) => {
    const client = await context.client();
    context.print(await context.data(client.GET('/tokens')), TOKEN_COLUMNS);
  },
};

const tokensCreate: Command = {
  name: 'tokens create',
  summary: 'mint an API token; its secret is shown once',
  options: {
    name: { type: 'string' },
    scopes: { type: 'string' },
    'current-password': { type: 'string' },
  },
  required: ['name', 'scopes'],
  run: async (context) => {
    const client = await context.client();
    const currentPassword = context.string('current-password');
    const minted = await context.data(
      client.POST('/tokens', {
        body: {
          token: { name: context.option('name'), scopes: context.option('scopes').split(',') },
          ...(currentPassword === undefined ? {} : { current_password: currentPassword }),
        },
      }),
    );
    context.print(minted, [
      ...fields<Schemas['MintedTokenResponseDto']>('token_id', 'name', 'scopes'),
      { heading: 'token', value: (row) => row.token },
    ]);
  },
};

const tokensRevoke: Command = {
  name: 'tokens revoke',
  summary: 'revoke an API token',
  args: ['token-id'],
  run: async (context) => {
    const client = await context.client();
    const [id] = context.args;
    await context.send(client.DELETE('/tokens/{id}', { params: { path: { id } } }));
    context.io.stderr(`revoked token ${id}\n`);
  },
};

export const ORGANIZATION_COMMANDS = [
  orgsList,
  orgsCreate,
  projectsList,
  projectsCreate,
  tokensList,
  tokensCreate,
  tokensRevoke,
];
