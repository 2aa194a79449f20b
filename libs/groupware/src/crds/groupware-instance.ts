import {
  conditions,
  credentialsSecret,
  objectName,
  observedGeneration,
  persistence,
  probe,
  resources,
  secretKeyRef,
  stringMap,
  talkBackend,
  VERSION_PATTERN,
} from './common-schemas.js';
import { array, boolean, integer, map, object, open, quantity, string } from '@platform/kube';

/** The version an instance runs when it names none. */
export const DEFAULT_GROUPWARE_VERSION = '29';

/** Apps that take only `enabled`. */
export const WELL_KNOWN_APPS = [
  'calendar',
  'contacts',
  'deck',
  'tasks',
  'notes',
  'mail',
  'collectives',
  'whiteboard',
  'forms',
  'admin_audit',
  'groupfolders',
  'photos',
  'previewgenerator',
] as const;

const enabled = boolean({ description: 'true enables the app, false disables it.' });
const simpleApp = object({ enabled });
type SimpleApp = typeof simpleApp;

const database = object(
  {
    type: string({ enum: ['postgresql', 'mysql'], default: 'postgresql' }),
    managed: boolean({
      description: 'Create a PostgreSQL cluster for the instance through CloudNativePG.',
      default: false,
    }),
    credentialsSecret: credentialsSecret(
      'host, port, name, user, password; overrides inline values',
    ),
    host: string({ description: 'Ignored when credentialsSecret is set.' }),
    port: integer({ default: 5432, minimum: 1, maximum: 65535 }),
    name: string({ default: 'nextcloud' }),
    user: string({ default: 'nextcloud' }),
    password: string({ description: 'Prefer credentialsSecret: this is stored in the object.' }),
    postgres: object(
      {
        replicas: integer({ description: 'PostgreSQL instances (1 when unset).', minimum: 1 }),
        storage: object({ size: quantity('Volume size of each PostgreSQL instance.') }),
        backup: object(
          {
            enabled: boolean(),
            s3: object({
              bucket: string(),
              endpoint: string({ description: 'S3-compatible URL.' }),
              credentialsSecret: credentialsSecret('accessKey, secretKey'),
            }),
          },
          {
            description: 'Backups of the managed cluster to S3 (barmanObjectStore).',
            validations: [
              {
                rule: '!has(self.enabled) || !self.enabled || has(self.s3)',
                message: 'an enabled database backup needs s3',
              },
            ],
          },
        ),
      },
      { description: 'The managed cluster; only with managed true.' },
    ),
  },
  {
    description: 'Database of the instance.',
    default: {},
    validations: [
      {
        rule: '!has(self.postgres) || (has(self.managed) && self.managed)',
        message: 'postgres applies only with managed: true',
      },
      {
        rule: '!has(self.managed) || !self.managed || !has(self.type) || self.type == "postgresql"',
        message: 'a managed database is PostgreSQL',
      },
    ],
  },
);

const dataBackup = object(
  {
    enabled: boolean({ default: false }),
    bucket: string(),
    endpoint: string({ description: 'S3-compatible URL.' }),
    region: string(),
    credentialsSecret: credentialsSecret('accessKey, secretKey'),
    schedule: string({ description: 'Cron schedule.', default: '0 3 * * *', minLength: 1 }),
    deleteOnCleanup: boolean({
      description: 'Delete the backup data when the instance is deleted.',
      default: false,
    }),
  },
  {
    description: 'Backups of the data volume to S3.',
    default: {},
    validations: [
      {
        rule: '!has(self.enabled) || !self.enabled || (has(self.bucket) && has(self.credentialsSecret))',
        message: 'an enabled data backup needs bucket and credentialsSecret',
      },
    ],
  },
);

export const groupwareApps = object(
  {
    ...(Object.fromEntries(WELL_KNOWN_APPS.map((app) => [app, simpleApp])) as Record<
      (typeof WELL_KNOWN_APPS)[number],
      SimpleApp
    >),
    richdocuments: object(
      {
        enabled,
        wopiUrl: string({ description: 'URL of the Collabora Online (WOPI) server.' }),
        wopiAllowlist: array(string(), {
          description: 'Addresses or CIDR ranges allowed to call the WOPI endpoints.',
        }),
      },
      { description: 'Nextcloud Office.' },
    ),
    spreed: object(
      {
        enabled,
        stunServers: array(string({ description: 'host:port' }), { listType: 'set' }),
        turnServers: array(
          object(
            {
              server: string({ description: 'host:port', minLength: 1 }),
              schemes: string({ enum: ['turn', 'turns', 'turn,turns'], default: 'turn' }),
              protocols: string({ enum: ['udp', 'tcp', 'udp,tcp'], default: 'udp,tcp' }),
              secretRef: secretKeyRef('Shared secret of the TURN server.', 'secret'),
            },
            { required: ['server', 'secretRef'] },
          ),
        ),
        signalingServers: array(talkBackend('A high-performance signaling server.')),
        recording: talkBackend('The recording server of this instance.'),
      },
      { description: 'Talk.' },
    ),
    custom: array(
      object(
        {
          appId: string({ minLength: 1, pattern: '^[a-z0-9_]+$' }),
          enabled,
        },
        { required: ['appId', 'enabled'] },
      ),
      { description: 'Any other app, by id.', listType: 'map', mapKeys: ['appId'] },
    ),
  },
  {
    description:
      'Apps to enable or disable once the instance is Ready; removing an entry changes nothing.',
  },
);

export const groupwareInstanceSpec = object(
  {
    profile: objectName('GroupwareProfile whose defaults apply under this spec.'),
    version: string({
      description: 'A major ("29": its newest known patch) or an exact version ("29.0.16").',
      default: DEFAULT_GROUPWARE_VERSION,
      pattern: VERSION_PATTERN,
    }),
    replicas: integer({
      description: 'Pod replicas; the profile, else 1, when unset.',
      minimum: 1,
    }),
    ingress: object(
      {
        enabled: boolean(),
        host: string(),
        className: string(),
        annotations: stringMap('Annotations of the Ingress.'),
        tls: object({ enabled: boolean() }),
      },
      { description: 'Ingress of the instance.' },
    ),
    database,
    redis: object({
      enabled: boolean(),
      credentialsSecret: credentialsSecret('host, port, password'),
    }),
    s3: object(
      {
        enabled: boolean(),
        credentialsSecret: credentialsSecret('bucket, endpoint, region, accessKey, secretKey'),
      },
      { description: 'Primary object storage.' },
    ),
    admin: object({
      credentialsSecret: credentialsSecret(
        'username, password, email; generated as <name>-admin when unset',
      ),
    }),
    mail: object({
      enabled: boolean(),
      credentialsSecret: credentialsSecret(
        'fromAddress, domain, smtpHost, smtpPort, smtpSecure, smtpAuthType, smtpName, smtpPassword',
      ),
    }),
    oidc: open('Single sign-on configuration, handed to the chart as written.'),
    resources,
    persistence,
    cronjob: object(
      { enabled: boolean({ description: 'Run background jobs through cron.' }) },
      { description: 'Background job configuration.' },
    ),
    livenessProbe: probe('Liveness probe overrides.'),
    readinessProbe: probe('Readiness probe overrides.'),
    startupProbe: probe('Startup probe overrides.'),
    license_key: string({ description: 'Enterprise license key.' }),
    apps: groupwareApps,
    backups: object({ data: dataBackup }, { default: {} }),
    helm: object(
      {
        version: string({ description: 'Chart version instead of the resolved one.' }),
        values: open('Chart values applied last, over everything the operator sets.'),
      },
      { description: 'Chart overrides.' },
    ),
  },
  { description: 'Desired groupware instance.' },
);

export const INSTANCE_PHASES = ['Pending', 'Creating', 'Ready', 'Updating', 'Failed'] as const;

export const groupwareInstanceStatus = object(
  {
    phase: string({ enum: INSTANCE_PHASES }),
    observedGeneration,
    conditions,
    versionResolution: object({
      requestedVersion: string(),
      resolvedVersion: string(),
      chartVersion: string(),
      resolvedBy: string({ enum: ['builtin'] }),
    }),
    url: string({ description: 'Where users reach the instance.' }),
    apps: map(boolean(), { description: 'The apps as last applied: app id to enabled.' }),
  },
  { description: 'Observed state.' },
);
