import { Module } from '@nestjs/common';
import { AlertRoutesRepository } from '@platform/alerting';
import { CapabilitiesModule } from '@platform/capabilities';
import { ChainsRepository } from '../chains/chains.repository.js';
import { PresetsController } from './presets.controller.js';
import { PresetsRepository } from './presets.repository.js';
import { PresetsService } from './presets.service.js';

/** Seeding a project's alert routing with defaults. */
@Module({
  imports: [CapabilitiesModule],
  controllers: [PresetsController],
  providers: [AlertRoutesRepository, ChainsRepository, PresetsRepository, PresetsService],
})
export class PresetsModule {}
