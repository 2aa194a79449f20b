{{- define "backup-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "backup-operator.fullname" -}}
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

{{- define "backup-operator.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "backup-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "backup-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "backup-operator.labels" -}}
helm.sh/chart: {{ include "backup-operator.chart" . }}
{{ include "backup-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "backup-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "backup-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "backup-operator.leaseName" -}}
{{- default (printf "%s-leader" (include "backup-operator.fullname" .)) .Values.leaderElection.leaseName }}
{{- end }}

{{/*
The namespaces the operator watches, as a JSON list: watchNamespaces, or the single
watchNamespace; empty for every namespace.
*/}}
{{- define "backup-operator.watchNamespaces" -}}
{{- if .Values.watchNamespaces -}}
{{- .Values.watchNamespaces | toJson -}}
{{- else -}}
{{- compact (list .Values.watchNamespace) | toJson -}}
{{- end -}}
{{- end }}
