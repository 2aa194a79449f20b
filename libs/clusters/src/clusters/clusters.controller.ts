import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CloudRoute } from '@platform/cloud-core';
import { ApiData } from '@platform/core';
import { CurrentPrincipal, type Principal } from '@platform/identity';
import { ClusterDto } from './cluster.view.js';
import { CreateClusterBody } from './clusters.dto.js';
import { ClustersService } from './clusters.service.js';

const NOT_FOUND = [404, 'not_found', 'the project has no cluster with this id'] as const;
const NAME_TAKEN = [409, 'conflict', 'the project already has a cluster of this name'] as const;
const PROVISIONING = [
  502,
  'provider_unavailable',
  "also: the project's Gardener project is not Ready within 10 s of its creation (`retryable: true`), or its name serves another project (`retryable: false`)",
] as const;

/**
 * Kubernetes clusters: Gardener Shoots in the project's Gardener project. Creating one needs
 * the kubernetes kind `cluster` Available, which a platform admin grants (provisioned tier).
 */
@ApiTags('k8s: clusters')
@Controller('k8s')
export class ClustersController {
  constructor(private readonly clusters: ClustersService) {}

  @Get('clusters')
  @ApiData(ClusterDto, { list: true, description: "the project's clusters, by name" })
  @CloudRoute({ permission: 'kubernetes:read' })
  list(@CurrentPrincipal() principal: Principal) {
    return this.clusters.list(principal);
  }

  @Get('clusters/:id')
  @ApiData(ClusterDto, {
    description: 'the cluster, its status and conditions as Gardener reports them',
  })
  @CloudRoute({ permission: 'kubernetes:read', errors: [NOT_FOUND] })
  show(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.clusters.show(principal, id);
  }

  @Post('clusters')
  @HttpCode(202)
  @ApiData(ClusterDto, {
    status: 202,
    description: 'the new cluster as it stands (status `Pending` or `Processing`); poll it',
  })
  @CloudRoute({
    permission: 'kubernetes:create',
    capability: { feature: 'kubernetes', kind: 'cluster' },
    errors: [NAME_TAKEN, PROVISIONING],
  })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateClusterBody) {
    return this.clusters.create(principal, body);
  }

  @Delete('clusters/:id')
  @HttpCode(202)
  @ApiData(ClusterDto, {
    status: 202,
    description:
      'deletion accepted: the cluster as it stands, its status a `Delete`; poll it until it answers 404',
  })
  @CloudRoute({ permission: 'kubernetes:delete', errors: [NOT_FOUND] })
  delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.clusters.delete(principal, id);
  }
}
