{{- define "platform.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "platform.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "platform.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Selector labels of one component (api, worker, migration): call with (list $ "api"). */}}
{{- define "platform.selectorLabels" -}}
{{- $root := index . 0 }}
app.kubernetes.io/name: {{ include "platform.name" $root }}
app.kubernetes.io/instance: {{ $root.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end }}

{{- define "platform.labels" -}}
{{- $root := index . 0 }}
helm.sh/chart: {{ include "platform.chart" $root }}
{{ include "platform.selectorLabels" . }}
app.kubernetes.io/version: {{ $root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ $root.Release.Service }}
{{- end }}

{{- define "platform.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "platform.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "platform.image" -}}
"{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
{{- end }}

{{/* The Secret holding the secret settings: the existing one, or the chart's own. */}}
{{- define "platform.secretName" -}}
{{- default (printf "%s-env" (include "platform.fullname" .)) .Values.secrets.existingSecret }}
{{- end }}

{{/* The environment every process shares: plain settings, then the mounted kubeconfigs. */}}
{{- define "platform.env" -}}
- name: NODE_ENV
  value: production
- name: PORT
  value: {{ .Values.api.port | quote }}
- name: WORKER_PORT
  value: {{ .Values.worker.port | quote }}
{{- range $name, $value := .Values.config }}
{{- if $value }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- end }}
{{- if .Values.kubeconfigs.garden.secretName }}
- name: GARDEN_KUBECONFIG
  value: /etc/platform/kubeconfigs/garden/{{ .Values.kubeconfigs.garden.key }}
{{- end }}
{{- if .Values.kubeconfigs.apps.secretName }}
- name: APPS_KUBECONFIG
  value: /etc/platform/kubeconfigs/apps/{{ .Values.kubeconfigs.apps.key }}
{{- end }}
{{- end }}

{{/* The volumes of a pod: a writable /tmp under a read-only root, and the kubeconfigs. */}}
{{- define "platform.volumes" -}}
- name: tmp
  emptyDir:
    sizeLimit: 64Mi
{{- with .Values.kubeconfigs.garden.secretName }}
- name: garden-kubeconfig
  secret:
    secretName: {{ . }}
{{- end }}
{{- with .Values.kubeconfigs.apps.secretName }}
- name: apps-kubeconfig
  secret:
    secretName: {{ . }}
{{- end }}
{{- end }}

{{- define "platform.volumeMounts" -}}
- name: tmp
  mountPath: /tmp
{{- if .Values.kubeconfigs.garden.secretName }}
- name: garden-kubeconfig
  mountPath: /etc/platform/kubeconfigs/garden
  readOnly: true
{{- end }}
{{- if .Values.kubeconfigs.apps.secretName }}
- name: apps-kubeconfig
  mountPath: /etc/platform/kubeconfigs/apps
  readOnly: true
{{- end }}
{{- end }}
