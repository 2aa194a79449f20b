import 'reflect-metadata';
import { BackupOperatorModule } from '@platform/backups';
import { bootstrapOperator } from '@platform/kube';

await bootstrapOperator('backup-operator', [BackupOperatorModule.forRoot()]);
