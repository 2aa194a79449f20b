import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiUpstreamData, CloudRoute } from '@platform/cloud-core';
import { CurrentPrincipal, type Principal } from '@platform/identity';
import { CreateRecordBody, RecordPath, UpdateRecordBody } from './dns.dto.js';
import { DUPLICATE, RECORDSET_NOT_FOUND, ZONE_NOT_FOUND } from './dns-errors.js';
import { RECORDSET, RECORDSET_REQUIRED } from './dns.openapi.js';
import { RecordsService } from './records.service.js';

const recordset = (description: string) =>
  ApiUpstreamData({
    status: 202,
    properties: RECORDSET,
    required: RECORDSET_REQUIRED,
    description,
  });

@ApiTags('dns: records')
@Controller('dns/zones')
export class RecordsController {
  constructor(private readonly records: RecordsService) {}

  @Get(':id/records')
  @ApiUpstreamData({
    list: true,
    properties: RECORDSET,
    required: RECORDSET_REQUIRED,
    description: "the zone's record sets (Designate), its SOA and NS among them",
  })
  @CloudRoute({ permission: 'dns:read', errors: [ZONE_NOT_FOUND] })
  list(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.records.list(principal, id);
  }

  @Post(':id/records')
  @HttpCode(202)
  @recordset('the new record set as it stands (`PENDING`)')
  @CloudRoute({
    permission: 'dns:create',
    capability: { feature: 'dns', kind: 'record' },
    errors: [ZONE_NOT_FOUND, DUPLICATE],
  })
  create(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: CreateRecordBody,
  ) {
    return this.records.create(principal, id, body);
  }

  @Patch(':zone_id/records/:name/:type')
  @HttpCode(202)
  @recordset('the record set as it stands (`PENDING`, `action: UPDATE`)')
  @CloudRoute({ permission: 'dns:update', errors: [RECORDSET_NOT_FOUND] })
  update(
    @CurrentPrincipal() principal: Principal,
    @Param() path: RecordPath,
    @Body() body: UpdateRecordBody,
  ) {
    return this.records.update(principal, path, body);
  }

  @Delete(':zone_id/records/:name/:type')
  @HttpCode(202)
  @recordset('the record set as it stands (`action: DELETE`) while Designate removes it')
  @CloudRoute({ permission: 'dns:delete', errors: [RECORDSET_NOT_FOUND] })
  delete(@CurrentPrincipal() principal: Principal, @Param() path: RecordPath) {
    return this.records.delete(principal, path);
  }
}
