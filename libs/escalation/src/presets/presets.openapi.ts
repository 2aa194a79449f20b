import { ApiProperty } from '@nestjs/swagger';

/** The project's routing after seeding. */
export class SeededPresets {
  @ApiProperty({ type: 'integer', example: 2, description: 'alert routes of the project now' })
  routes!: number;

  @ApiProperty({
    type: 'integer',
    example: 1,
    description: 'escalation chains of the project now',
  })
  escalation_chains!: number;
}
