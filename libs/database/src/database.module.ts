import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, type AppConfig, HealthRegistry } from '@platform/core';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source.js';

/** The PostgreSQL connection. Entities are registered by each module with `TypeOrmModule.forFeature`. */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        ...dataSourceOptions(config.databaseUrl),
        autoLoadEntities: true,
      }),
    }),
  ],
})
export class DatabaseModule implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly health: HealthRegistry,
  ) {}

  onModuleInit(): void {
    this.health.register('database', async () => {
      await this.dataSource.query('SELECT 1');
    });
  }
}
