import { DynamicModule, Module } from '@nestjs/common';
import { type AppConfig, CoreModule, ProbesModule } from '@platform/core';
import { OperatorProbesController } from './operator-probes.controller.js';

/** What every operator process runs: configuration, metrics and the probe endpoints. */
@Module({})
export class OperatorModule {
  static forRoot(config: AppConfig, imports: DynamicModule['imports'] = []): DynamicModule {
    return {
      module: OperatorModule,
      imports: [CoreModule.forRoot(config), ProbesModule, ...(imports ?? [])],
      controllers: [OperatorProbesController],
    };
  }
}
