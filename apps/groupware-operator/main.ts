import 'reflect-metadata';
import { GroupwareOperatorModule } from '@platform/groupware';
import { bootstrapOperator } from '@platform/kube';

await bootstrapOperator('groupware-operator', [GroupwareOperatorModule.forRoot()]);
