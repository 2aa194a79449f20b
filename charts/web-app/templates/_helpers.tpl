{{- define "web-app.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Objects are named after the release: a release is one app, and the platform's app names (the
release names) are already DNS labels of at most 53 characters, starting with a letter.
*/}}
{{- define "web-app.fullname" -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "web-app.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "web-app.selectorLabels" -}}
app.kubernetes.io/name: {{ include "web-app.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
No app.kubernetes.io/version: the app's version is its image tag, and a tag (up to 128
characters, may start with `_` or end with `.`) is not always a valid label value.
*/}}
{{- define "web-app.labels" -}}
helm.sh/chart: {{ include "web-app.chart" . }}
{{ include "web-app.selectorLabels" . }}
app.kubernetes.io/component: web
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/*
The image the Pod runs: repository@digest when a digest is pinned (a registry push pins the
digest the tag pointed at), else repository:tag.
*/}}
{{- define "web-app.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository .Values.image.tag }}
{{- end }}
{{- end }}
