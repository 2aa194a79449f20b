import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { backupCrdDirectory, loadBackupCrd } from './index.js';
import { FALLBACK_IMAGE_REPOSITORY } from '../api/defaults.js';
import { schemaAt } from '@platform/kube';

const chart = dirname(backupCrdDirectory());
const read = (file: string) => readFileSync(join(chart, file), 'utf8');

/** The `rules:` list of an RBAC template, which holds no template directives but the named ones. */
function rulesOf(template: string, placeholders: Record<string, string> = {}): unknown {
  const text = read(template);
  let rules = text.slice(text.indexOf('\nrules:'));
  rules = rules.replace(/\{\{- end \}\}\s*$/, '');
  for (const [directive, value] of Object.entries(placeholders)) {
    rules = rules.replaceAll(directive, value);
  }
  expect(rules).not.toContain('{{');
  return (parse(rules) as { rules: unknown }).rules;
}

/** The rules every RBAC template includes, from their one definition in `_rules.tpl`. */
function sharedRules(): string {
  const text = read('templates/_rules.tpl');
  const start = text.indexOf('{{- define "backup-operator.rules" -}}\n');
  const body = text.slice(start).split('\n').slice(1);
  const end = body.indexOf('{{- end }}');
  const rules = body.slice(0, end).join('\n');
  expect(rules).not.toContain('{{');
  return rules;
}

/**
 * A template with Helm's directives stood in for: `values` replaces whole expressions,
 * and lines holding only control directives (if, range, end, fail, comments) are dropped.
 */
function renderWith(template: string, values: Record<string, string>): string {
  let text = read(template);
  text = text.replace(/\{\{-? ?\/\*[\s\S]*?\*\/ ?-?\}\}\n/g, '');
  for (const [directive, value] of Object.entries(values)) text = text.replaceAll(directive, value);
  text = text
    .split('\n')
    .filter((line) => !/^\s*\{\{-? (if|else|end|range|fail|\$)/.test(line))
    .join('\n');
  expect(text).not.toContain('{{');
  return text;
}

const CRUD = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
const KINDS = ['volumebackups', 'volumerestores', 'volumesnapshotbackups', 's3backups'];

describe('backup-operator chart', () => {
  it('Chart.yaml names the chart', () => {
    expect(parse(read('Chart.yaml'))).toMatchObject({
      apiVersion: 'v2',
      name: 'backup-operator',
      type: 'application',
    });
  });

  it('values.yaml holds the operator settings with their defaults', () => {
    const values = parse(read('values.yaml'));
    expect(values).toMatchObject({
      image: { repository: expect.any(String), tag: '', pullPolicy: 'IfNotPresent' },
      replicaCount: 2,
      leaderElection: { enabled: true, leaseName: '' },
      watchNamespace: '',
      watchNamespaces: [],
      rbac: { create: true, namespaced: false },
      resyncPeriodSeconds: 300,
      reconcileWorkers: 4,
      logLevel: 'info',
      backupImage: { repository: 'registry.neutral.com/public/restic' },
      metrics: {
        port: 8080,
        tokenSecret: { name: '', key: 'token' },
        serviceMonitor: { enabled: false },
      },
      resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '256Mi' } },
      securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false },
      podSecurityContext: { runAsNonRoot: true },
    });
  });

  it('leaves the backup image repository to the operator, which takes it from the chart', () => {
    for (const plural of ['volumebackups', 'volumerestores', 'volumesnapshotbackups']) {
      const root = loadBackupCrd(plural).spec.versions[0].schema.openAPIV3Schema;
      expect(schemaAt(root, 'spec.image.repository')).toBeDefined();
      expect(schemaAt(root, 'spec.image.repository')?.default).toBeUndefined();
    }
    expect(parse(read('values.yaml')).backupImage.repository).toBe(FALLBACK_IMAGE_REPOSITORY);
  });

  it('the ClusterRole grants exactly what the reconcilers call', () => {
    expect(read('templates/clusterrole.yaml')).toContain(
      'rules:\n{{ include "backup-operator.rules" . }}\n{{- end }}',
    );
    expect(parse(sharedRules())).toEqual([
      {
        apiGroups: ['backups.k8s.neutral.com'],
        resources: KINDS,
        verbs: ['get', 'list', 'watch', 'update', 'patch'],
      },
      {
        apiGroups: ['backups.k8s.neutral.com'],
        resources: KINDS.map((kind) => `${kind}/status`),
        verbs: ['get', 'update', 'patch'],
      },
      {
        apiGroups: ['backups.k8s.neutral.com'],
        resources: KINDS.map((kind) => `${kind}/finalizers`),
        verbs: ['update'],
      },
      { apiGroups: ['batch'], resources: ['cronjobs', 'jobs'], verbs: CRUD },
      { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: CRUD },
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    ]);
  });

  it('leader election may create Leases and read and renew only its own', () => {
    const leaseName = '{{ include "backup-operator.leaseName" . | quote }}';
    expect(rulesOf('templates/role.yaml', { [leaseName]: 'LEASE' })).toEqual([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        resourceNames: ['LEASE'],
        verbs: ['get', 'update'],
      },
    ]);
    expect(read('templates/deployment.yaml')).toContain(
      `- name: LEASE_NAME\n              value: ${leaseName}`,
    );
  });

  it('the Deployment runs the backup operator with its configuration and probes', () => {
    const deployment = read('templates/deployment.yaml');
    expect(deployment).toContain(
      'command: [node, --max-semi-space-size=4, dist/apps/backup-operator/main.js]',
    );
    for (const variable of [
      'POD_NAME',
      'POD_NAMESPACE',
      'LEADER_ELECTION',
      'LEADER_ELECTION_NAMESPACE',
      'LEASE_NAME',
      'WATCH_NAMESPACE',
      'RESYNC_PERIOD_SECONDS',
      'RECONCILE_WORKERS',
      'BACKUP_IMAGE_REPOSITORY',
      'PORT',
      'LOG_LEVEL',
    ]) {
      expect(deployment).toContain(`- name: ${variable}\n`);
    }
    expect(deployment).toMatch(
      /- name: POD_NAME\n\s+valueFrom:\n\s+fieldRef:\n\s+fieldPath: metadata.name/,
    );
    expect(deployment).toMatch(/path: \/healthz\n\s+port: http/);
    expect(deployment).toMatch(/path: \/readyz\n\s+port: http/);
  });

  it('protects /metrics with METRICS_TOKEN from an existing Secret when one is named', () => {
    const secret = '{{ . | quote }}';
    const key = '{{ $.Values.metrics.tokenSecret.key | quote }}';
    expect(read('templates/deployment.yaml')).toContain(
      [
        '            {{- with .Values.metrics.tokenSecret.name }}',
        '            - name: METRICS_TOKEN',
        '              valueFrom:',
        '                secretKeyRef:',
        `                  name: ${secret}`,
        `                  key: ${key}`,
        '            {{- end }}',
      ].join('\n'),
    );
    // Prometheus scrapes with the same Secret.
    expect(read('templates/servicemonitor.yaml')).toContain(
      [
        '      path: /metrics',
        '      interval: {{ .Values.metrics.serviceMonitor.interval }}',
        '      scrapeTimeout: {{ .Values.metrics.serviceMonitor.scrapeTimeout }}',
        '      {{- with .Values.metrics.tokenSecret.name }}',
        '      authorization:',
        '        type: Bearer',
        '        credentials:',
        `          name: ${secret}`,
        `          key: ${key}`,
        '      {{- end }}',
      ].join('\n'),
    );
  });

  it('needs no SECRET_KEY: webhook keys come from Secrets the resources name; the one optional chart Secret is the metrics token', () => {
    expect(readdirSync(join(chart, 'templates')).sort()).toEqual([
      'NOTES.txt',
      '_helpers.tpl',
      '_rules.tpl',
      'clusterrole.yaml',
      'clusterrolebinding.yaml',
      'deployment.yaml',
      'namespaced-rbac.yaml',
      'poddisruptionbudget.yaml',
      'role.yaml',
      'rolebinding.yaml',
      'service.yaml',
      'serviceaccount.yaml',
      'servicemonitor.yaml',
    ]);
    const deployment = read('templates/deployment.yaml');
    expect(deployment).not.toContain('SECRET_KEY');
    // The one Secret it may read is the optional metrics token.
    expect(deployment.match(/secretKeyRef/g)).toHaveLength(1);
    expect(deployment).toMatch(/- name: METRICS_TOKEN\n\s+valueFrom:\n\s+secretKeyRef:/);
  });

  describe('rbac.namespaced', () => {
    const include = (name: string, scope = '$') =>
      `{{ include "backup-operator.${name}" ${scope} }}`;

    it('installs the ClusterRole and its binding only without it', () => {
      for (const file of ['clusterrole.yaml', 'clusterrolebinding.yaml']) {
        expect(read(`templates/${file}`).split('\n')[0]).toBe(
          '{{- if and .Values.rbac.create (not .Values.rbac.namespaced) }}',
        );
      }
    });

    it('installs a Role with the same rules and a RoleBinding in every watched namespace', () => {
      const text = read('templates/namespaced-rbac.yaml');
      expect(text).toContain('{{- if and .Values.rbac.create .Values.rbac.namespaced }}');
      expect(text).toContain(
        '{{- $namespaces := include "backup-operator.watchNamespaces" . | fromJsonArray }}',
      );
      expect(text).toContain('{{- range $namespace := $namespaces }}');
      // Without namespaces there is nothing to bind: the install fails rather than grant nothing.
      expect(text).toMatch(/\{\{- if not \$namespaces \}\}\n\{\{- fail "rbac.namespaced needs/);
      const rendered = renderWith('templates/namespaced-rbac.yaml', {
        [`{{- ${include('labels').slice(3, -3)} | nindent 4 }}`]:
          'app.kubernetes.io/name: backup-operator',
        [include('rules')]: sharedRules(),
        [include('fullname')]: 'RELEASE-backup-operator',
        [include('serviceAccountName')]: 'SERVICE-ACCOUNT',
        '{{ $namespace | quote }}': 'team-a',
        '{{ $.Release.Namespace }}': 'operators',
      });
      const documents = parseAllDocuments(rendered)
        .map((doc) => doc.toJS() as Record<string, unknown> | null)
        .filter((doc) => doc !== null);
      expect(documents).toEqual([
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: {
            name: 'RELEASE-backup-operator',
            namespace: 'team-a',
            labels: { 'app.kubernetes.io/name': 'backup-operator' },
          },
          rules: parse(sharedRules()),
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: {
            name: 'RELEASE-backup-operator',
            namespace: 'team-a',
            labels: { 'app.kubernetes.io/name': 'backup-operator' },
          },
          roleRef: {
            apiGroup: 'rbac.authorization.k8s.io',
            kind: 'Role',
            name: 'RELEASE-backup-operator',
          },
          subjects: [{ kind: 'ServiceAccount', name: 'SERVICE-ACCOUNT', namespace: 'operators' }],
        },
      ]);
    });

    it('WATCH_NAMESPACE lists the same namespaces the Roles are installed in', () => {
      expect(read('templates/deployment.yaml')).toContain(
        [
          '            - name: WATCH_NAMESPACE',
          '              value: {{ include "backup-operator.watchNamespaces" . | fromJsonArray | join "," | quote }}',
        ].join('\n'),
      );
      expect(read('templates/_helpers.tpl')).toContain(
        [
          '{{- define "backup-operator.watchNamespaces" -}}',
          '{{- if .Values.watchNamespaces -}}',
          '{{- .Values.watchNamespaces | toJson -}}',
          '{{- else -}}',
          '{{- compact (list .Values.watchNamespace) | toJson -}}',
          '{{- end -}}',
          '{{- end }}',
        ].join('\n'),
      );
    });
  });
});
