import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { CloudRoute } from '@platform/cloud-core';
import { ApiData, type ErrorDoc } from '@platform/core';
import { CurrentPrincipal, type Principal } from '@platform/identity';
import { BucketParams, CreateBucketBody } from './rgw-buckets.dto.js';
import { RgwBucketsService } from './rgw-buckets.service.js';
import { RgwBucketResponse } from './rgw-bucket.view.js';

const NOT_FOUND: ErrorDoc = [404, 'not_found', 'no object-storage user of the project has this id'];
const BUCKET_NOT_FOUND: ErrorDoc = [
  404,
  'not_found',
  'the user has no bucket of this name (another user may)',
];
const BUCKET_CONFLICT: ErrorDoc = [
  409,
  'conflict',
  'the organization already has a bucket of this name, or the user is locked',
];

@ApiTags('object storage')
@Controller('rgw/users/:id/buckets')
export class RgwBucketsController {
  constructor(private readonly buckets: RgwBucketsService) {}

  @Get()
  @ApiData(RgwBucketResponse, { list: true, description: "the user's buckets with their usage" })
  @CloudRoute({ permission: 'rgw:read', errors: [NOT_FOUND] })
  list(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.buckets.list(principal, id);
  }

  @Post()
  @ApiData(RgwBucketResponse, { status: 201, description: 'the new, empty bucket' })
  @CloudRoute({
    permission: 'rgw:create',
    capability: { feature: 'object_storage', kind: 'bucket' },
    errors: [NOT_FOUND, BUCKET_CONFLICT],
  })
  create(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: CreateBucketBody,
  ) {
    return this.buckets.create(principal, id, body.name);
  }

  @Delete(':name')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the bucket and every object in it are deleted' })
  @CloudRoute({ permission: 'rgw:delete', errors: [NOT_FOUND, BUCKET_NOT_FOUND] })
  delete(@CurrentPrincipal() principal: Principal, @Param() params: BucketParams) {
    return this.buckets.delete(principal, params.id, params.name);
  }
}
