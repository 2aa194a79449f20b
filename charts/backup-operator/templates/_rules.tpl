{{/*
The API calls of the reconcilers: the ClusterRole's rules, or each watched namespace's Role's
with rbac.namespaced. Jobs and claims in remote clusters (kubeconfig.inCluster false) are written
with the kubeconfig's own identity, not with these.
*/}}
{{- define "backup-operator.rules" -}}
- apiGroups: [backups.k8s.neutral.com]
  resources: [volumebackups, volumerestores, volumesnapshotbackups, s3backups]
  verbs: [get, list, watch, update, patch]
- apiGroups: [backups.k8s.neutral.com]
  resources:
    - volumebackups/status
    - volumerestores/status
    - volumesnapshotbackups/status
    - s3backups/status
  verbs: [get, update, patch]
# Owner references with blockOwnerDeletion on the Jobs, CronJobs and claims.
- apiGroups: [backups.k8s.neutral.com]
  resources:
    - volumebackups/finalizers
    - volumerestores/finalizers
    - volumesnapshotbackups/finalizers
    - s3backups/finalizers
  verbs: [update]
- apiGroups: [batch]
  resources: [cronjobs, jobs]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: ['']
  resources: [persistentvolumeclaims]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: ['']
  resources: [pods]
  verbs: [get, list, watch]
# Restore progress from the restore container's output.
- apiGroups: ['']
  resources: [pods/log]
  verbs: [get]
# Kubeconfig Secrets of remote clusters, OpenStack credentials of VolumeSnapshotBackups and webhook
# signing keys; repository Secrets are only referenced, never read.
- apiGroups: ['']
  resources: [secrets]
  verbs: [get]
- apiGroups: ['']
  resources: [events]
  verbs: [create, patch]
{{- end }}
