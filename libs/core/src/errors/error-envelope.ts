import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** The body of every error response. */
export class ErrorEnvelope {
  @ApiProperty({ example: 'validation_failed' })
  code!: string;

  @ApiProperty({ example: 'name must be a string' })
  message!: string;

  @ApiProperty({ example: 'api', description: 'the module that produced the error' })
  source_service!: string;

  @ApiProperty({ example: 'projects.create', description: 'the operation that failed' })
  source_operation!: string;

  @ApiProperty({ description: 'whether the same request may succeed when retried' })
  retryable!: boolean;

  @ApiProperty({ description: 'also sent as the X-Request-Id header' })
  request_id!: string;

  @ApiPropertyOptional({ description: 'machine-readable detail, e.g. the failing fields' })
  details?: unknown;
}
