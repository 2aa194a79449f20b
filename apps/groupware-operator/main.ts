import 'reflect-metadata';
import { bootstrapOperator } from '@platform/kube';

await bootstrapOperator('groupware-operator');
