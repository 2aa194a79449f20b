import { type DynamicModule, Module, type Provider, type Type } from '@nestjs/common';
import { type OperatorTiming, OperatorRuntimeModule, type Reconciler } from '@platform/kube';
import { GroupwareInstanceReconciler } from '../instance/groupware-instance.reconciler.js';

export interface GroupwareOperatorOptions {
  /** Extra providers, e.g. a KubeClient (replacing the one built from the environment). */
  providers?: Provider[];
  timing?: Partial<OperatorTiming>;
}

/** One reconciler per kind of the group. */
const RECONCILERS: Type<Reconciler>[] = [GroupwareInstanceReconciler];

/** The groupware operator: the reconcilers of k8s.neutral.com on the operator runtime. */
@Module({})
export class GroupwareOperatorModule {
  static forRoot(options: GroupwareOperatorOptions = {}): DynamicModule {
    return {
      module: GroupwareOperatorModule,
      imports: [
        OperatorRuntimeModule.forRoot({
          name: 'groupware-operator',
          reconcilers: RECONCILERS,
          providers: [...(options.providers ?? [])],
          timing: options.timing,
        }),
      ],
    };
  }
}
