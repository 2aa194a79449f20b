import { ApiProperty } from '@nestjs/swagger';
import { TOP_NOISY_LIMIT } from './insights.repository.js';

export class InsightsTotals {
  @ApiProperty({ type: 'integer', description: 'alerts whose starts_at is in the window' })
  alerts!: number;

  @ApiProperty({ type: 'integer', description: 'every alert firing now, whatever its age' })
  firing_now!: number;

  @ApiProperty({
    type: 'number',
    minimum: 0,
    maximum: 1,
    example: 0.8125,
    description:
      'alerts of the window with an acknowledgement divided by alerts, to four decimals; 0 when there are none',
  })
  acked_share!: number;
}

export class InsightsMtta {
  @ApiProperty({
    type: 'number',
    nullable: true,
    example: 182.5,
    description:
      'continuous median (percentile_cont 0.5) of the seconds from starts_at to the earliest acknowledgement, one sample per acknowledged alert of the window; null when none is acknowledged',
  })
  median_seconds!: number | null;

  @ApiProperty({
    type: 'number',
    nullable: true,
    example: 1260,
    description: 'the same at percentile 0.9',
  })
  p90_seconds!: number | null;
}

export class InsightsVolumeDay {
  @ApiProperty({ format: 'date', example: '2026-03-01', description: 'UTC day of starts_at' })
  date!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    example: { critical: 2, warning: 5 },
    description: 'alerts per severity that day; only severities that occur',
  })
  severities!: Record<string, number>;
}

export class InsightsNoisyAlert {
  @ApiProperty({ example: 'HighCpuUsage', description: 'the alertname label, or (unknown)' })
  alertname!: string;

  @ApiProperty({ type: 'integer', description: 'fired plus refired events in the window' })
  occurrences!: number;
}

export class InsightsAcksByChannel {
  @ApiProperty({ type: 'integer' })
  in_app!: number;

  @ApiProperty({ type: 'integer' })
  email!: number;

  @ApiProperty({ type: 'integer', description: 'phone calls and SMS replies' })
  phone!: number;
}

export class InsightsEscalations {
  @ApiProperty({ type: 'integer', description: 'escalation instances opened in the window' })
  opened!: number;

  @ApiProperty({ type: 'integer', description: 'of those, how many ran out of steps' })
  exhausted!: number;

  @ApiProperty({
    type: 'number',
    minimum: 0,
    maximum: 1,
    description:
      'share of those that repeated their chain (repeat_count > 0), to four decimals; 0 when none opened',
  })
  repeat_rate!: number;

  @ApiProperty({
    type: InsightsAcksByChannel,
    description: 'acknowledgements recorded in the window per channel (escalation ledger)',
  })
  acks_by_channel!: InsightsAcksByChannel;
}

export class InsightsOnCallLoad {
  @ApiProperty({ format: 'uuid' })
  account_id!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'null when the account no longer exists',
  })
  name!: string | null;

  @ApiProperty({ type: 'integer', description: 'pages delivered to the account' })
  notified!: number;

  @ApiProperty({ type: 'integer', description: 'phone calls placed to the account' })
  called!: number;

  @ApiProperty({ type: 'integer', description: 'acknowledgements by the account' })
  acked!: number;
}

/** What `GET .../alerts/insights` answers. */
export class AlertInsights {
  @ApiProperty({ type: InsightsTotals })
  totals!: InsightsTotals;

  @ApiProperty({ type: InsightsMtta })
  mtta!: InsightsMtta;

  @ApiProperty({
    type: [InsightsVolumeDay],
    description: 'one entry per UTC day with at least one alert, oldest first',
  })
  volume!: InsightsVolumeDay[];

  @ApiProperty({
    type: [InsightsNoisyAlert],
    maxItems: TOP_NOISY_LIMIT,
    description: `at most ${TOP_NOISY_LIMIT}, the most occurrences first, ties by alertname`,
  })
  top_noisy!: InsightsNoisyAlert[];

  @ApiProperty({ type: InsightsEscalations })
  escalations!: InsightsEscalations;

  @ApiProperty({
    type: [InsightsOnCallLoad],
    description:
      'accounts with escalation ledger rows in the window, the busiest (notified + called + acked) first, then by account id',
  })
  on_call_load!: InsightsOnCallLoad[];
}
