import { open, type Schema } from '@platform/kube';

// Fields not described yet: kept as written.
export const s3BackupSpec = open('Desired bucket-to-repository backup.');

export const s3BackupStatus: Schema<Record<string, unknown>> = {
  schema: {
    type: 'object',
    description: 'Observed state.',
    'x-kubernetes-preserve-unknown-fields': true,
    properties: {
      phase: { type: 'string', description: 'Phase of the current or last run.' },
      observedGeneration: {
        type: 'integer',
        description: 'Generation of the spec the status describes.',
        format: 'int64',
      },
    },
  },
};
