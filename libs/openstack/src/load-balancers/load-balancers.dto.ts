import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';

/** The filter Octavia applies to listeners and pools: those of one load balancer. */
export class LoadBalancerFilterQuery {
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'only those of this load balancer (passed to Octavia as its filter)',
  })
  @IsOptional()
  @IsUUID()
  loadbalancer_id?: string;
}
