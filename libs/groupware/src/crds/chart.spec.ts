import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { GROUPWARE_KINDS } from './definitions.js';

const chart = fileURLToPath(new URL('../../../../charts/groupware-operator/', import.meta.url));
const read = (file: string) => readFileSync(`${chart}${file}`, 'utf8');

/**
 * The manifests of an RBAC template with its directives replaced: the `if` around it, the
 * labels include, and the named placeholders. What is left must be plain YAML.
 */
interface Manifest {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  rules?: unknown[];
  [field: string]: unknown;
}

function manifestsOf(template: string, placeholders: Record<string, string> = {}): Manifest[] {
  let text = read(template)
    .replace(/^\{\{- if .*\}\}\n/, '')
    .replace(/\{\{- end \}\}\s*$/, '')
    .replaceAll('{{- include "groupware-operator.labels" . | nindent 4 }}', 'chart: labels');
  for (const [directive, value] of Object.entries(placeholders)) {
    text = text.replaceAll(directive, value);
  }
  text = text.replaceAll(/\{\{ include "groupware-operator\.[a-zA-Z]+" \. \}\}/g, 'NAME');
  text = text.replaceAll('{{ .Release.Namespace }}', 'NAMESPACE');
  expect(text).not.toContain('{{');
  return parseAllDocuments(text).map((document) => document.toJS() as Manifest);
}

const CRUD = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
const PLURALS = Object.values(GROUPWARE_KINDS).map((definition) => definition.plural);
const GROUP = 'k8s.neutral.com';

describe('groupware-operator chart', () => {
  it('Chart.yaml names the chart', () => {
    expect(parse(read('Chart.yaml'))).toMatchObject({
      apiVersion: 'v2',
      name: 'groupware-operator',
      type: 'application',
    });
  });

  it('holds the templates of an operator and its roles', () => {
    expect(readdirSync(`${chart}templates`).sort()).toEqual([
      'NOTES.txt',
      '_helpers.tpl',
      'aggregated-roles.yaml',
      'clusterrole.yaml',
      'clusterrolebinding.yaml',
      'deployment.yaml',
      'role.yaml',
      'rolebinding.yaml',
      'serviceaccount.yaml',
    ]);
  });

  it('values.yaml runs the operator non-root, read-only, with bounded resources', () => {
    expect(parse(read('values.yaml'))).toMatchObject({
      image: { repository: expect.any(String), tag: '', pullPolicy: 'IfNotPresent' },
      replicaCount: 2,
      leaderElection: { enabled: true, leaseName: '' },
      port: 8080,
      rbac: { create: true, aggregatedRoles: true },
      resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '256Mi' } },
      podSecurityContext: { runAsNonRoot: true, runAsUser: 1000 },
      securityContext: {
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      },
    });
  });

  it('the operator ClusterRole grants exactly what the operator design names', () => {
    const [role] = manifestsOf('templates/clusterrole.yaml');
    expect(role).toMatchObject({ kind: 'ClusterRole', metadata: { name: 'NAME' } });
    expect(role.rules).toEqual([
      { apiGroups: [GROUP], resources: ['groupwareinstances'], verbs: CRUD },
      {
        apiGroups: [GROUP],
        resources: PLURALS.filter((plural) => plural !== 'groupwareinstances'),
        verbs: ['get', 'list', 'watch', 'update', 'patch'],
      },
      {
        apiGroups: [GROUP],
        resources: PLURALS.map((plural) => `${plural}/status`),
        verbs: ['get', 'update', 'patch'],
      },
      {
        apiGroups: [GROUP],
        resources: PLURALS.map((plural) => `${plural}/finalizers`),
        verbs: ['update'],
      },
      { apiGroups: ['helm.toolkit.fluxcd.io'], resources: ['helmreleases'], verbs: CRUD },
      {
        apiGroups: ['source.toolkit.fluxcd.io'],
        resources: ['helmrepositories'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'],
      },
      { apiGroups: ['postgresql.cnpg.io'], resources: ['clusters'], verbs: CRUD },
      { apiGroups: ['batch'], resources: ['cronjobs', 'jobs'], verbs: CRUD },
      {
        apiGroups: [''],
        resources: ['secrets'],
        verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
      },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    ]);
  });

  it('leader election may create Leases and read and renew only its own', () => {
    const leaseName = '{{ include "groupware-operator.leaseName" . | quote }}';
    const [role] = manifestsOf('templates/role.yaml', { [leaseName]: 'LEASE' });
    expect(role.rules).toEqual([
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

  it('the bindings give the roles to the operator ServiceAccount', () => {
    const [binding] = manifestsOf('templates/clusterrolebinding.yaml');
    expect(binding).toMatchObject({
      kind: 'ClusterRoleBinding',
      roleRef: { kind: 'ClusterRole', name: 'NAME' },
      subjects: [{ kind: 'ServiceAccount', name: 'NAME', namespace: 'NAMESPACE' }],
    });
  });

  it('groupware-view and groupware-edit aggregate into the cluster view, edit and admin roles', () => {
    const [view, edit] = manifestsOf('templates/aggregated-roles.yaml');
    expect(view).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: {
        name: 'groupware-view',
        labels: { chart: 'labels', 'rbac.authorization.k8s.io/aggregate-to-view': 'true' },
      },
      rules: [{ apiGroups: [GROUP], resources: PLURALS, verbs: ['get', 'list', 'watch'] }],
    });
    expect(edit).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: {
        name: 'groupware-edit',
        labels: {
          chart: 'labels',
          'rbac.authorization.k8s.io/aggregate-to-edit': 'true',
          'rbac.authorization.k8s.io/aggregate-to-admin': 'true',
        },
      },
      rules: [{ apiGroups: [GROUP], resources: PLURALS, verbs: CRUD }],
    });
  });

  it('the Deployment runs the groupware operator with probes and no Secret', () => {
    const deployment = read('templates/deployment.yaml');
    expect(deployment).toContain(
      'command: [node, --max-semi-space-size=4, dist/apps/groupware-operator/main.js]',
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
      'PORT',
      'LOG_LEVEL',
    ]) {
      expect(deployment).toContain(`- name: ${variable}\n`);
    }
    expect(deployment).toMatch(/path: \/healthz\n\s+port: http/);
    expect(deployment).toMatch(/path: \/readyz\n\s+port: http/);
    expect(deployment).toContain('{{- toYaml .Values.podSecurityContext | nindent 8 }}');
    expect(deployment).toContain('{{- toYaml .Values.securityContext | nindent 12 }}');
    expect(deployment).toContain('{{- toYaml .Values.resources | nindent 12 }}');
    expect(deployment).not.toContain('secretKeyRef');
  });
});
