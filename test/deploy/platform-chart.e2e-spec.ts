import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { Ajv } from 'ajv';
import { RE2JS } from 're2js';
import { parse } from 'yaml';
import {
  actionsOf,
  blocksOf,
  coalesce,
  inside,
  KEYWORDS,
  openObjects,
  patternsOf,
  resolvesIn,
  type Schema,
  schemaPaths,
  skeletonOf,
  type Values,
  valuesPathsOf,
  wordsOf,
} from './chart-text.js';

/*
 * The platform chart (API, worker, migration) without Helm: values.schema.json against the
 * chart's values and the shipped examples as Helm would check them (merged over values.yaml),
 * the settings it passes against those the processes read, and the templates' structure and
 * the manifests they leave once the template actions are taken out.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHART = `${ROOT}charts/platform/`;
const read = (file: string) => readFileSync(`${CHART}${file}`, 'utf8');

const schema = JSON.parse(read('values.schema.json')) as Schema;
const defaults = parse(read('values.yaml')) as Values;
const validate = new Ajv({ strict: true, allErrors: true }).compile(schema);
const EXAMPLES = readdirSync(`${CHART}examples`).filter((file) => file.endsWith('.yaml'));
const example = (file: string) => parse(read(`examples/${file}`)) as Values;

/** What Helm would say of supplied values: the schema's errors (path and keyword), or none. */
function errorsOf(supplied: Values): string[] {
  if (validate(coalesce(defaults, supplied))) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.keyword}`);
}

const TEMPLATES = readdirSync(`${CHART}templates`).sort();
const MANIFESTS = TEMPLATES.filter((file) => file.endsWith('.yaml'));
const template = (file: string) => read(`templates/${file}`);
const helpers = template('_helpers.tpl');

const FUNCTIONS = new Set([
  'include',
  'nindent',
  'toYaml',
  'toJson',
  'sha256sum',
  'quote',
  'printf',
  'trunc',
  'trimSuffix',
  'replace',
  'default',
  'contains',
  'list',
  'index',
  'int',
  'gt',
  'not',
  'and',
  'or',
  'fail',
]);
const OBJECTS = /^(?:\$[a-z]*)?(?:\.(?:(?:Values|Release|Chart)(?:\.\w+)*|\w+)?)?$/;

/** The body of a `define` of _helpers.tpl. */
function defined(name: string): string {
  const block = blocksOf(helpers).find((b) => b.open.body === `define "${name}"`);
  expect(block).toBeDefined();
  return inside(helpers, block!);
}

/** The configuration's source, where every environment variable a process reads is named. */
const CONFIG_SOURCES = [
  'libs/core/src/config/app-config.ts',
  'libs/openstack/src/client/openstack-settings.ts',
].filter((file) => existsSync(`${ROOT}${file}`));
const configText = [
  ...CONFIG_SOURCES,
  ...readdirSync(`${ROOT}libs`, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'))
    .map((file) => `libs/${file}`),
]
  .map((file) => readFileSync(`${ROOT}${file}`, 'utf8'))
  .join('\n');

describe('platform chart', () => {
  describe('Chart.yaml and values', () => {
    it('names the chart', () => {
      expect(parse(read('Chart.yaml'))).toMatchObject({
        apiVersion: 'v2',
        name: 'platform',
        type: 'application',
        version: '0.1.0',
      });
    });

    it('refuses the bare defaults until the secrets are given', () => {
      expect(errorsOf({})).toEqual([
        '/secrets/values required',
        '/secrets/values required',
        '/secrets/values required',
        '/secrets if',
      ]);
      expect(validate.errors!.map((e) => e.params)).toContainEqual({
        missingProperty: 'SECRET_KEY',
      });
    });

    it.each(EXAMPLES)('examples/%s validates merged over values.yaml', (file) => {
      expect(errorsOf(example(file))).toEqual([]);
    });

    const quickstart = () => example('quickstart.yaml');
    const withSecret = (values: Values) => ({
      ...quickstart(),
      secrets: { values: { ...(quickstart().secrets as { values: Values }).values, ...values } },
    });

    it.each([
      ['an unknown top-level key', { ...quickstart(), replicas: 2 }, '/ additionalProperties'],
      [
        'an unknown setting',
        { ...quickstart(), config: { PORTT: '1' } },
        '/config additionalProperties',
      ],
      [
        'a bad log level',
        { ...quickstart(), config: { LOG_LEVEL: 'loud' } },
        '/config/LOG_LEVEL enum',
      ],
      [
        'a public URL without scheme',
        { ...quickstart(), config: { PUBLIC_URL: 'example.com' } },
        '/config/PUBLIC_URL pattern',
      ],
      [
        'a short SECRET_KEY',
        withSecret({ SECRET_KEY: 'short' }),
        '/secrets/values/SECRET_KEY minLength',
      ],
      [
        'a MySQL DATABASE_URL',
        withSecret({ DATABASE_URL: 'mysql://db/x' }),
        '/secrets/values/DATABASE_URL pattern',
      ],
      ['an unknown secret', withSecret({ PASSWORD: 'x' }), '/secrets/values additionalProperties'],
      [
        'zero API replicas',
        { ...quickstart(), api: { replicaCount: 0 } },
        '/api/replicaCount minimum',
      ],
      ['a port above 65535', { ...quickstart(), worker: { port: 70000 } }, '/worker/port maximum'],
      [
        'a string replica count',
        { ...quickstart(), worker: { replicaCount: '2' } },
        '/worker/replicaCount type',
      ],
      [
        'an Ingress without host',
        { ...quickstart(), ingress: { enabled: true } },
        '/ingress/host minLength',
      ],
      [
        'an upper-case host',
        { ...quickstart(), ingress: { enabled: true, host: 'A.example' } },
        '/ingress/host pattern',
      ],
      [
        'a bad pull policy',
        { ...quickstart(), image: { pullPolicy: 'Sometimes' } },
        '/image/pullPolicy enum',
      ],
      [
        'a bad memory quantity',
        { ...quickstart(), api: { resources: { limits: { memory: 'lots' } } } },
        '/api/resources/limits/memory pattern',
      ],
      [
        'a bad scrape interval',
        { ...quickstart(), metrics: { serviceMonitor: { enabled: true, interval: '30' } } },
        '/metrics/serviceMonitor/interval pattern',
      ],
    ])('refuses %s', (_, values, error) => {
      expect(errorsOf(values as Values)).toContain(error);
    });

    it('needs no secret values with an existing Secret', () => {
      expect(errorsOf({ secrets: { existingSecret: 'platform-env' } })).toEqual([]);
    });
  });

  describe('values.schema.json', () => {
    it('is draft-07 and closed wherever it describes the fields', () => {
      expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
      // Kubernetes' own shapes, passed through as written.
      expect(openObjects(schema)).toEqual([
        '#/properties/api/properties/tolerations/items',
        '#/properties/api/properties/affinity',
        '#/properties/worker/properties/tolerations/items',
        '#/properties/worker/properties/affinity',
        '#/properties/podSecurityContext',
        '#/properties/securityContext',
      ]);
    });

    it('uses only patterns that Go (RE2) compiles', () => {
      const patterns = patternsOf(schema);
      expect(patterns.length).toBeGreaterThanOrEqual(8);
      for (const pattern of patterns) expect(() => RE2JS.compile(pattern)).not.toThrow();
    });

    it('passes only settings the processes read', () => {
      const names = [
        ...Object.keys(schema.properties!.config.properties!),
        ...Object.keys(schema.properties!.secrets.properties!.values.properties!),
      ];
      expect(names.length).toBeGreaterThan(30);
      expect(names.filter((name) => !configText.includes(`'${name}'`))).toEqual([]);
    });
  });

  describe('templates', () => {
    it('read only values the schema declares, and every declared value is read', () => {
      const used = new Set(TEMPLATES.flatMap((file) => valuesPathsOf(template(file))));
      expect([...used].filter((path) => !resolvesIn(schema, path))).toEqual([]);
      // A value is read by name, or as part of a map passed on whole (resources, config).
      const isRead = (path: string) =>
        [...used].some(
          (read) => read === path || path.startsWith(`${read}.`) || read.startsWith(`${path}.`),
        );
      expect(schemaPaths(schema).filter((path) => !isRead(path))).toEqual([]);
    });

    it.each(TEMPLATES)('%s: blocks close, only known functions', (file) => {
      const text = template(file);
      blocksOf(text);
      const words = actionsOf(text).flatMap((action) => wordsOf(action, OBJECTS));
      expect(words.filter((w) => !FUNCTIONS.has(w) && !KEYWORDS.has(w))).toEqual([]);
    });

    const KINDS: Record<string, [string, string]> = {
      'api-deployment.yaml': ['apps/v1', 'Deployment'],
      'api-hpa.yaml': ['autoscaling/v2', 'HorizontalPodAutoscaler'],
      'api-poddisruptionbudget.yaml': ['policy/v1', 'PodDisruptionBudget'],
      'api-service.yaml': ['v1', 'Service'],
      'ingress.yaml': ['networking.k8s.io/v1', 'Ingress'],
      'migration-job.yaml': ['batch/v1', 'Job'],
      'secret.yaml': ['v1', 'Secret'],
      'serviceaccount.yaml': ['v1', 'ServiceAccount'],
      'servicemonitor.yaml': ['monitoring.coreos.com/v1', 'ServiceMonitor'],
      'worker-deployment.yaml': ['apps/v1', 'Deployment'],
      'worker-poddisruptionbudget.yaml': ['policy/v1', 'PodDisruptionBudget'],
      'worker-service.yaml': ['v1', 'Service'],
    };

    it('has one manifest per expected kind', () => {
      expect(MANIFESTS).toEqual(Object.keys(KINDS).sort());
      for (const file of MANIFESTS) {
        const { apiVersion, kind } = skeletonOf(template(file));
        expect([file, apiVersion, kind]).toEqual([file, ...KINDS[file]]);
      }
    });

    interface Container {
      command: string[];
      ports?: Array<{ name: string; containerPort: string }>;
      livenessProbe?: { httpGet: { path: string; port: string } };
      readinessProbe?: { httpGet: { path: string; port: string } };
      envFrom: unknown;
    }
    const podOf = (file: string) =>
      (skeletonOf(template(file)) as { spec: { template: { spec: { containers: Container[] } } } })
        .spec.template.spec;

    it('runs each process of the image, with the secrets from the Secret', () => {
      const commands = Object.fromEntries(
        ['api-deployment.yaml', 'worker-deployment.yaml', 'migration-job.yaml'].map((file) => [
          file,
          podOf(file).containers[0].command,
        ]),
      );
      expect(commands).toEqual({
        'api-deployment.yaml': ['node', 'dist/apps/api/main.js'],
        'worker-deployment.yaml': ['node', 'dist/apps/worker/main.js'],
        'migration-job.yaml': ['node', 'dist/apps/migrate/main.js'],
      });
      for (const [file, command] of Object.entries(commands)) {
        expect([
          file,
          existsSync(`${ROOT}${command[1].replace(/^dist\//, '').replace(/\.js$/, '.ts')}`),
        ]).toEqual([file, true]);
        expect(podOf(file).containers[0].envFrom).toEqual([{ secretRef: { name: 'TEMPLATED' } }]);
      }
    });

    it('probes the API and the worker on their health routes', () => {
      for (const file of ['api-deployment.yaml', 'worker-deployment.yaml']) {
        const [container] = podOf(file).containers;
        expect(container.ports).toEqual([
          { name: 'http', containerPort: 'TEMPLATED', protocol: 'TCP' },
        ]);
        expect(container.livenessProbe!.httpGet).toEqual({ path: '/health/live', port: 'http' });
        expect(container.readinessProbe!.httpGet).toEqual({ path: '/health/ready', port: 'http' });
      }
      expect(template('api-deployment.yaml')).toContain('containerPort: {{ .Values.api.port }}');
      expect(template('worker-deployment.yaml')).toContain(
        'containerPort: {{ .Values.worker.port }}',
      );
    });

    it('migrates as a hook before install and upgrade, after the Secret it reads', () => {
      const job = skeletonOf(template('migration-job.yaml')) as {
        metadata: { annotations: Record<string, string> };
        spec: { template: { spec: { restartPolicy: string } } };
      };
      expect(job.metadata.annotations).toEqual({
        'helm.sh/hook': 'pre-install,pre-upgrade',
        'helm.sh/hook-weight': '0',
        'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
      });
      expect(job.spec.template.spec.restartPolicy).toBe('Never');
      const secret = skeletonOf(template('secret.yaml')) as {
        metadata: { annotations: Record<string, string> };
      };
      expect(secret.metadata.annotations['helm.sh/hook']).toBe('pre-install,pre-upgrade');
      expect(Number(secret.metadata.annotations['helm.sh/hook-weight'])).toBeLessThan(0);
      expect(template('secret.yaml')).toMatch(
        /^\{\{- if not \.Values\.secrets\.existingSecret \}\}/,
      );
    });

    it('passes the ports and the settings as the environment of every process', () => {
      const env = parse(
        defined('platform.env')
          .split('\n')
          .filter((line) => !/^\s*\{\{[^}]*\}\}\s*$/.test(line))
          .map((line) => line.replace(/\{\{[^}]*\}\}/g, 'TEMPLATED'))
          .join('\n'),
      ) as Array<{ name: string; value: string }>;
      expect(env.map((entry) => entry.name)).toEqual([
        'NODE_ENV',
        'PORT',
        'WORKER_PORT',
        'TEMPLATED',
        'GARDEN_KUBECONFIG',
        'APPS_KUBECONFIG',
      ]);
      expect(defined('platform.env')).toContain('{{- range $name, $value := .Values.config }}');
      for (const name of ['PORT', 'WORKER_PORT', 'GARDEN_KUBECONFIG', 'APPS_KUBECONFIG']) {
        expect(configText).toContain(`'${name}'`);
      }
    });

    it('runs non-root on a read-only root file system', () => {
      expect(defaults.podSecurityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      expect(defaults.securityContext).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
      });
      for (const file of ['api-deployment.yaml', 'worker-deployment.yaml', 'migration-job.yaml']) {
        expect(template(file)).toContain('toYaml .Values.securityContext');
        expect(template(file)).toContain('toYaml .Values.podSecurityContext');
      }
    });
  });
});
