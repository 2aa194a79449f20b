import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { Ajv, type ValidateFunction } from 'ajv';
import { RE2JS } from 're2js';
import { parse } from 'yaml';
import {
  type Action,
  actionsOf,
  blocksOf,
  coalesce,
  inside,
  isMap,
  KEYWORDS,
  resolvesIn,
  type Schema,
  schemaPaths,
  skeletonOf as skeletonFromText,
  type Values,
  valuesPathsOf,
  wordsOf as wordsOfAction,
} from './chart-text.js';
import {
  APP_CHARTS,
  APP_VALUE_SCHEMAS,
  chartValues,
  DNS_NAME_PATTERN,
  ENV_NAME_PATTERN,
  IMAGE_PATTERN,
} from '../../libs/apps/src/apps/app-kinds.js';
import { validatedValues } from '../../libs/apps/src/apps/app-values.js';
import { parseImageReference } from '../../libs/webhooks/src/receive/push-event.js';

/*
 * The web-app chart (the `container` kind's chart) without Helm: its values are checked against
 * values.schema.json as Helm checks them (the supplied values merged over values.yaml), with
 * the values the API itself writes; its templates are checked for their structure: the
 * `.Values` paths they read, their blocks, functions and includes, and the manifests they
 * leave once the template actions are taken out.
 */

const CHART = fileURLToPath(new URL('../../charts/web-app/', import.meta.url));
const read = (file: string) => readFileSync(`${CHART}${file}`, 'utf8');

const schema = JSON.parse(read('values.schema.json')) as Schema;
const defaults = parse(read('values.yaml')) as Values;
const validate: ValidateFunction = new Ajv({ strict: true, allErrors: true }).compile(schema);
const prop = (...path: string[]): Schema =>
  path.reduce<Schema>((node, key) => node.properties?.[key] ?? {}, schema);

/** What Helm would say of the values the platform supplies: the schema's errors, or none. */
function errorsOf(supplied: Values): string[] {
  if (validate(coalesce(defaults, supplied))) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.keyword}`);
}

/** The HelmRelease `spec.values` of a new container app, as the API writes them. */
const written = (clientValues: Values): Values =>
  chartValues('container', validatedValues('container', clientValues));

const HEX64 = '0123456789abcdef'.repeat(4);
const HEX128 = HEX64.repeat(2);

// At the API's limits: a 253-character host, a 384-character image with a 128-character tag.
const LONGEST_HOST = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
const LONGEST_TAG = `v${'1'.repeat(127)}`;
const LONGEST_IMAGE = `registry.example.com/team/${'a'.repeat(384 - 26 - 1 - LONGEST_TAG.length)}:${LONGEST_TAG}`;

const CONTAINER_APPS: Array<[string, Values]> = [
  ['the least an app sends', { image: 'nginx:1.25', port: 80 }],
  [
    'every field',
    {
      image: 'registry.example.com:5000/team/sub/app:1.0-rc.1',
      port: 8080,
      replicas: 3,
      env: [
        { name: 'DATABASE_URL', value: 'postgres://app:p$(w)d@db:5432/app' },
        { name: '_EMPTY', value: '' },
        { name: 'multi_line', value: 'a\nb "quoted" \\ back' },
      ],
      host: 'shop.example.com',
    },
  ],
  [
    'the upper bounds',
    {
      image: LONGEST_IMAGE,
      port: 65535,
      replicas: 20,
      env: Array.from({ length: 100 }, (_, i) => ({ name: `V${i}`, value: 'x'.repeat(32768) })),
      host: LONGEST_HOST,
    },
  ],
  ['the lower bounds', { image: 'r.example.com/ns/app:_', port: 1, replicas: 1, env: [] }],
];

// ---- template text --------------------------------------------------------------------------

const TEMPLATES = readdirSync(`${CHART}templates`).sort();
const MANIFESTS = TEMPLATES.filter((file) => file.endsWith('.yaml'));
const template = (file: string) => read(`templates/${file}`);

/** The functions the chart may call: Go template built-ins, Helm's and Sprig's. */
const FUNCTIONS = new Set([
  'include',
  'nindent',
  'toYaml',
  'quote',
  'printf',
  'trunc',
  'trimSuffix',
  'replace',
  'int',
  'gt',
]);
const OBJECTS =
  /^\$?\.(?:Values(?:\.\w+)+|Release\.(?:Name|Namespace|Service)|Chart\.(?:Name|Version)|\w+)?$/;

const resolves = (path: string) => resolvesIn(schema, path);
const wordsOf = (action: Action) => wordsOfAction(action, OBJECTS);
const skeletonOf = (file: string) => skeletonFromText(template(file));

// ---- the tests ------------------------------------------------------------------------------

describe('web-app chart', () => {
  describe('Chart.yaml and values.yaml', () => {
    it('is the chart the container kind installs', () => {
      expect(parse(read('Chart.yaml'))).toMatchObject({
        apiVersion: 'v2',
        name: APP_CHARTS.container.chart,
        type: 'application',
        version: '0.1.0',
      });
      expect(APP_CHARTS.container.type).toBeUndefined();
      expect(read('README.md')).toContain(APP_CHARTS.container.url);
    });

    it('values.yaml validates against values.schema.json', () => {
      expect(validate(defaults)).toBe(true);
      expect(validate.errors ?? []).toEqual([]);
      expect(defaults).toEqual({
        image: { repository: expect.any(String), tag: expect.any(String) },
        port: 8080,
        replicas: 1,
        env: [],
        resources: {
          requests: { cpu: '50m', memory: '128Mi' },
          limits: { cpu: '500m', memory: '256Mi' },
        },
        ingress: { className: '', clusterIssuer: '' },
      });
    });

    it('has no default for host or image.digest, which would reach every app without them', () => {
      expect(defaults).not.toHaveProperty('host');
      expect(defaults).not.toHaveProperty('image.digest');
      expect(coalesce(defaults, written({ image: 'nginx:1.25', port: 80 }))).toEqual({
        ...defaults,
        image: { repository: 'nginx', tag: '1.25' },
        port: 80,
      });
    });
  });

  describe('values.schema.json', () => {
    it('is draft-07, closed at the top and in every object', () => {
      expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
      const open: string[] = [];
      const walk = (node: unknown, at: string) => {
        if (!isMap(node)) return;
        if (node.type === 'object' && node.additionalProperties !== false) open.push(at);
        for (const [key, child] of Object.entries(node)) {
          if (Array.isArray(child)) child.forEach((item, i) => walk(item, `${at}/${key}/${i}`));
          else walk(child, `${at}/${key}`);
        }
      };
      walk(schema, '#');
      expect(open).toEqual([]);
      expect(schema.additionalProperties).toBe(false);
    });

    it('holds every field the API writes, with the bounds of the API', () => {
      const api = APP_VALUE_SCHEMAS.container as Schema;
      const everything = written(CONTAINER_APPS[1][1]);
      expect(Object.keys(everything).sort()).toEqual(['env', 'host', 'image', 'port', 'replicas']);
      for (const key of Object.keys(everything)) expect(schema.properties).toHaveProperty(key);
      expect(Object.keys(prop('image').properties ?? {}).sort()).toEqual([
        'digest',
        'repository',
        'tag',
      ]);
      const bounds = (node: Schema) => ({
        type: node.type,
        minimum: node.minimum,
        maximum: node.maximum,
        maxItems: node.maxItems,
        maxLength: node.maxLength,
      });
      for (const key of ['port', 'replicas', 'env', 'host']) {
        expect([key, bounds(prop(key))]).toEqual([key, bounds(api.properties![key])]);
      }
      for (const key of ['name', 'value']) {
        expect(bounds(prop('env').items!.properties![key])).toEqual(
          bounds(api.properties!.env.items!.properties![key]),
        );
      }
      expect(prop('env').items!.required).toEqual(['name', 'value']);
      expect(prop('replicas')).toMatchObject({ minimum: 1, maximum: 20 });
      expect(prop('port')).toMatchObject({ minimum: 1, maximum: 65535 });
    });

    it("takes the API's own grammar for images, env names and hosts", () => {
      const repository = prop('image', 'repository').pattern!;
      const tag = prop('image', 'tag').pattern!;
      expect(`${repository.slice(0, -1)}:${tag.slice(1)}`).toBe(IMAGE_PATTERN);
      expect(prop('image', 'repository').maxLength).toBe(
        (APP_VALUE_SCHEMAS.container as Schema).properties!.image.maxLength,
      );
      expect(LONGEST_IMAGE).toHaveLength(384);
      expect(LONGEST_HOST).toHaveLength(253);
      expect(prop('env').items!.properties!.name.pattern).toBe(ENV_NAME_PATTERN);
      // The API bounds the length with a lookahead, which Go's regexp refuses (Helm would fail
      // to load the schema): the chart says the same with maxLength.
      expect(() => RE2JS.compile(DNS_NAME_PATTERN)).toThrow();
      expect(prop('host').pattern).toBe(DNS_NAME_PATTERN.replace('(?=.{1,253}$)', ''));
      expect(prop('host').maxLength).toBe(253);
    });

    it('uses only patterns that Go (RE2) compiles', () => {
      const patterns: string[] = [];
      const walk = (node: unknown) => {
        if (Array.isArray(node)) node.forEach(walk);
        else if (isMap(node)) {
          if (typeof node.pattern === 'string') patterns.push(node.pattern);
          Object.values(node).forEach(walk);
        }
      };
      walk(schema);
      expect(patterns.length).toBeGreaterThanOrEqual(7);
      for (const pattern of patterns) expect(() => RE2JS.compile(pattern)).not.toThrow();
    });
  });

  describe('the values the API writes', () => {
    it.each(CONTAINER_APPS)('%s: validate, alone and merged over values.yaml', (_, client) => {
      const values = written(client);
      expect(validate(values)).toBe(true);
      expect(errorsOf(values)).toEqual([]);
    });

    it.each([
      ['sha256', `sha256:${HEX64}`],
      ['sha512', `sha512:${HEX128}`],
    ])('with a %s digest a registry push pins: validate', (_, digest) => {
      // The digest as the webhook takes it from a push event.
      const pushed = parseImageReference(`registry.example.com/team/app:v1@${digest}`);
      expect(pushed?.digest).toBe(digest);
      for (const [, client] of CONTAINER_APPS) {
        const values = written(client);
        (values.image as Values).digest = pushed!.digest;
        expect(errorsOf(values)).toEqual([]);
      }
    });

    const base = () => written(CONTAINER_APPS[1][1]);
    const withImage = (image: Values) => ({
      ...base(),
      image: { ...(base().image as Values), ...image },
    });
    const withEnv = (item: Values) => ({ ...base(), env: [item] });
    const bad = (name: string, values: Values, error: string): [string, Values, string] => [
      name,
      values,
      error,
    ];

    it.each([
      bad('port 0', { ...base(), port: 0 }, '/port minimum'),
      bad('port 65536', { ...base(), port: 65536 }, '/port maximum'),
      bad('port as a string', { ...base(), port: '8080' }, '/port type'),
      bad('a fractional port', { ...base(), port: 80.5 }, '/port type'),
      bad('replicas 0', { ...base(), replicas: 0 }, '/replicas minimum'),
      bad('replicas 21', { ...base(), replicas: 21 }, '/replicas maximum'),
      bad('an env name starting with a digit', withEnv({ name: '1X', value: '' }), 'pattern'),
      bad('an env name with a dash', withEnv({ name: 'A-B', value: '' }), 'pattern'),
      bad('an empty env name', withEnv({ name: '', value: '' }), 'pattern'),
      bad('an env entry without value', withEnv({ name: 'A' }), 'required'),
      bad('a number as env value', withEnv({ name: 'A', value: 1 }), 'type'),
      bad('a valueFrom env entry', withEnv({ name: 'A', value: '', valueFrom: {} }), 'additional'),
      bad('101 env entries', { ...base(), env: Array(101).fill({ name: 'A', value: '' }) }, 'max'),
      bad('a short digest', withImage({ digest: 'sha256:abc' }), '/image/digest pattern'),
      bad(
        'an upper-case digest',
        withImage({ digest: `sha256:${HEX64.toUpperCase()}` }),
        'pattern',
      ),
      bad('an md5 digest', withImage({ digest: `md5:${HEX64.slice(0, 32)}` }), 'pattern'),
      bad('a digest without algorithm', withImage({ digest: HEX64 }), '/image/digest pattern'),
      bad('a digest with a tail', withImage({ digest: `sha256:${HEX64}0` }), 'pattern'),
      bad('an empty tag', withImage({ tag: '' }), '/image/tag pattern'),
      bad('a repository with a tag', withImage({ repository: 'nginx:1' }), 'pattern'),
      bad('an upper-case repository', withImage({ repository: 'Team/App' }), 'pattern'),
      bad('an upper-case host', { ...base(), host: 'Shop.example.com' }, '/host pattern'),
      bad('a one-label host', { ...base(), host: 'localhost' }, '/host pattern'),
      bad('a wildcard host', { ...base(), host: '*.example.com' }, '/host pattern'),
      bad('a host with a final dot', { ...base(), host: 'shop.example.com.' }, '/host pattern'),
      bad('a 254-character host', { ...base(), host: `e${LONGEST_HOST}` }, '/host maxLength'),
      bad('an unknown key', { ...base(), extra: true }, '/ additionalProperties'),
      bad('an unknown image key', withImage({ pullPolicy: 'Always' }), 'additionalProperties'),
      bad(
        'an unknown resource',
        { ...base(), resources: { limits: { 'nvidia.com/gpu': 1 } } },
        '/resources/limits additionalProperties',
      ),
      bad('a bad quantity', { ...base(), resources: { limits: { cpu: 'lots' } } }, 'pattern'),
      bad(
        'an ingress class with capitals',
        { ...base(), ingress: { className: 'Nginx' } },
        'pattern',
      ),
    ])('%s is refused', (_, values, error) => {
      const errors = errorsOf(values);
      expect(errors).not.toEqual([]);
      expect(errors.join('\n')).toContain(error);
    });

    it('quantities may be numbers or strings, as YAML gives them', () => {
      expect(errorsOf({ resources: { limits: { cpu: 1, memory: '1Gi' } } })).toEqual([]);
      expect(errorsOf({ resources: { requests: { cpu: 0.25, memory: '1e9' } } })).toEqual([]);
      expect(errorsOf({ resources: { requests: { cpu: -1 } } })).not.toEqual([]);
    });
  });

  describe('templates', () => {
    it('are the Deployment, Service, Ingress, PodDisruptionBudget, helpers and notes', () => {
      expect(TEMPLATES).toEqual([
        'NOTES.txt',
        '_helpers.tpl',
        'deployment.yaml',
        'ingress.yaml',
        'poddisruptionbudget.yaml',
        'service.yaml',
      ]);
    });

    it('read only .Values paths the schema defines, and every value of the schema is read', () => {
      const used = new Set(TEMPLATES.flatMap((file) => valuesPathsOf(template(file))));
      expect(used.size).toBeGreaterThan(0);
      expect([...used].filter((path) => !resolves(path))).toEqual([]);
      const unread = schemaPaths(schema).filter(
        (path) =>
          ![...used].some(
            (read) => read === path || path.startsWith(`${read}.`) || read.startsWith(`${path}.`),
          ),
      );
      expect(unread).toEqual([]);
      expect([...used].sort()).toEqual([
        'env',
        'host',
        'image.digest',
        'image.repository',
        'image.tag',
        'ingress.className',
        'ingress.clusterIssuer',
        'port',
        'replicas',
        'resources',
      ]);
    });

    it('have blocks that nest and close, and call only known functions and objects', () => {
      for (const file of TEMPLATES) {
        const text = template(file);
        blocksOf(text);
        const words = actionsOf(text).flatMap(wordsOf);
        expect([file, words.filter((w) => !FUNCTIONS.has(w) && !KEYWORDS.has(w))]).toEqual([
          file,
          [],
        ]);
      }
    });

    it('include only the helpers _helpers.tpl defines, and each of them is used', () => {
      const defined = [...template('_helpers.tpl').matchAll(/define "([^"]+)"/g)].map((m) => m[1]);
      const included = new Set(
        TEMPLATES.flatMap((file) =>
          [...template(file).matchAll(/include "([^"]+)"/g)].map((m) => m[1]),
        ),
      );
      expect([...included].sort()).toEqual([...defined].sort());
      expect(defined.every((name) => name.startsWith('web-app.'))).toBe(true);
    });

    it('indent what nindent inserts at the column of its own line', () => {
      for (const file of TEMPLATES) {
        for (const line of template(file).split('\n')) {
          const width = /nindent (\d+)/.exec(line)?.[1];
          if (width) expect([file, line.search(/\S/)]).toEqual([file, Number(width)]);
        }
      }
    });

    it('leave manifests of the right kinds once the actions are taken out', () => {
      const kinds = Object.fromEntries(
        MANIFESTS.map((file) => {
          const { apiVersion, kind, metadata } = skeletonOf(file) as {
            apiVersion: string;
            kind: string;
            metadata: Values;
          };
          expect(metadata).toMatchObject({ name: 'TEMPLATED', namespace: 'TEMPLATED' });
          return [file, `${apiVersion} ${kind}`];
        }),
      );
      expect(kinds).toEqual({
        'deployment.yaml': 'apps/v1 Deployment',
        'ingress.yaml': 'networking.k8s.io/v1 Ingress',
        'poddisruptionbudget.yaml': 'policy/v1 PodDisruptionBudget',
        'service.yaml': 'v1 Service',
      });
      for (const file of MANIFESTS) {
        expect(template(file)).toMatch(/^ {2}name: \{\{ include "web-app\.fullname" \. \}\}$/m);
        expect(template(file)).toContain(
          '  labels:\n    {{- include "web-app.labels" . | nindent 4 }}',
        );
      }
    });
  });

  describe('the Deployment', () => {
    const text = template('deployment.yaml');
    const skeleton = skeletonOf('deployment.yaml') as {
      spec: { template: { spec: Values & { containers: Values[] } } };
    };
    const pod = skeleton.spec.template.spec;
    const container = pod.containers[0];

    it('runs repository@digest when a digest is pinned, else repository:tag', () => {
      expect(container.image).toBe('TEMPLATED');
      expect(text).toContain('image: {{ include "web-app.image" . | quote }}');
      const helpers = template('_helpers.tpl');
      const image = blocksOf(helpers).find((b) => b.open.body === 'define "web-app.image"');
      expect(image).toBeDefined();
      const branch = blocksOf(inside(helpers, image!)).find(
        (b) => b.open.body === 'if .Values.image.digest',
      );
      expect(branch).toBeDefined();
      const [pinned, tagged] = inside(inside(helpers, image!), branch!).split(/\{\{-? else -?\}\}/);
      expect(pinned.trim()).toBe(
        '{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}',
      );
      expect(tagged.trim()).toBe(
        '{{- printf "%s:%s" .Values.image.repository .Values.image.tag }}',
      );
    });

    it('listens on the port and probes it over TCP', () => {
      expect(text).toContain('replicas: {{ .Values.replicas }}');
      expect(text).toContain('containerPort: {{ .Values.port }}');
      expect(container.ports).toEqual([
        { name: 'http', containerPort: 'TEMPLATED', protocol: 'TCP' },
      ]);
      for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
        expect(container[probe]).toMatchObject({ tcpSocket: { port: 'http' } });
      }
    });

    it('passes env as literal name/value pairs, only when there are any', () => {
      const outer = blocksOf(text).find((b) => b.open.body === 'with .Values.env');
      expect(outer).toBeDefined();
      const body = inside(text, outer!);
      const loop = blocksOf(body).find((b) => b.open.body === 'range .');
      expect(loop).toBeDefined();
      // Inside the loop `.` is one env entry: it reads exactly the entries' fields.
      const fields = actionsOf(inside(body, loop!)).flatMap((a) =>
        [...a.body.matchAll(/(?:^|\s)\.(\w+)/g)].map((m) => m[1]),
      );
      expect(fields.sort()).toEqual(Object.keys(prop('env').items!.properties!).sort());
      expect(inside(body, loop!)).toContain('- name: {{ .name | quote }}');
      expect(inside(body, loop!)).toContain('value: {{ .value | replace "$" "$$" | quote }}');
      expect(container.env).toEqual([{ name: 'TEMPLATED', value: 'TEMPLATED' }]);
    });

    it('runs as non-root, without privilege escalation or capabilities, under RuntimeDefault', () => {
      expect(pod).toMatchObject({
        automountServiceAccountToken: false,
        enableServiceLinks: false,
        securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      });
      expect(container.securityContext).toEqual({
        runAsNonRoot: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      });
    });

    it('takes its resources from the values', () => {
      expect(text).toContain(
        'resources:\n            {{- toYaml .Values.resources | nindent 12 }}',
      );
      expect(container).toHaveProperty('resources', null);
    });

    it('selects its Pods by the selector labels, which the Pods carry', () => {
      expect(text).toContain(
        'matchLabels:\n      {{- include "web-app.selectorLabels" . | nindent 6 }}',
      );
      expect(text).toContain(
        'template:\n    metadata:\n      labels:\n        {{- include "web-app.labels" . | nindent 8 }}',
      );
      const helpers = template('_helpers.tpl');
      const labels = blocksOf(helpers).find((b) => b.open.body === 'define "web-app.labels"');
      expect(inside(helpers, labels!)).toContain('{{ include "web-app.selectorLabels" . }}');
      expect(inside(helpers, labels!)).toContain('app.kubernetes.io/managed-by:');
    });
  });

  describe('the Service', () => {
    it('serves the container port on port 80 inside the cluster', () => {
      expect(skeletonOf('service.yaml')).toMatchObject({
        spec: {
          type: 'ClusterIP',
          ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }],
        },
      });
      expect(template('service.yaml')).toContain(
        'selector:\n    {{- include "web-app.selectorLabels" . | nindent 4 }}',
      );
    });
  });

  describe('the Ingress', () => {
    const text = template('ingress.yaml');

    it('is wrapped whole in `if .Values.host`', () => {
      const outermost = blocksOf(text).at(-1)!;
      expect(outermost.open).toMatchObject({ body: 'if .Values.host', start: 0 });
      expect(text.slice(outermost.close.end).trim()).toBe('');
    });

    it('sends the host over TLS to the Service, with a Secret named after the release', () => {
      expect(skeletonOf('ingress.yaml')).toMatchObject({
        spec: {
          ingressClassName: 'TEMPLATED',
          tls: [{ hosts: ['TEMPLATED'], secretName: 'TEMPLATED-tls' }],
          rules: [
            {
              host: 'TEMPLATED',
              http: {
                paths: [
                  {
                    path: '/',
                    pathType: 'Prefix',
                    backend: { service: { name: 'TEMPLATED', port: { name: 'http' } } },
                  },
                ],
              },
            },
          ],
        },
      });
      expect(text).toContain('secretName: {{ include "web-app.fullname" . }}-tls');
      expect(text.match(/\{\{ \.Values\.host \| quote \}\}/g)).toHaveLength(2);
      expect(text).toContain('name: {{ include "web-app.fullname" . }}\n                port:');
    });

    it('takes the class and the cert-manager issuer from the values, each only when set', () => {
      const blocks = blocksOf(text);
      const withBody = (body: string) => {
        const block = blocks.find((b) => b.open.body === body);
        expect(block).toBeDefined();
        return inside(text, block!).trim();
      };
      expect(withBody('with .Values.ingress.className')).toBe('ingressClassName: {{ . | quote }}');
      expect(withBody('with .Values.ingress.clusterIssuer')).toBe(
        'annotations:\n    cert-manager.io/cluster-issuer: {{ . | quote }}',
      );
    });
  });

  describe('the PodDisruptionBudget', () => {
    it('exists only above one replica, and lets one Pod go at a time', () => {
      const text = template('poddisruptionbudget.yaml');
      const [outermost] = blocksOf(text).slice(-1);
      expect(outermost.open).toMatchObject({ body: 'if gt (int .Values.replicas) 1', start: 0 });
      expect(text.slice(outermost.close.end).trim()).toBe('');
      expect(skeletonOf('poddisruptionbudget.yaml')).toMatchObject({
        spec: { maxUnavailable: 1 },
      });
      expect(text).toContain(
        'matchLabels:\n      {{- include "web-app.selectorLabels" . | nindent 6 }}',
      );
    });
  });
});
