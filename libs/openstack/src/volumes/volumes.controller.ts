import { Controller, Get, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  ApiUpstreamData,
  CloudRoute,
  INTEGER,
  NULLABLE_STRING,
  OBJECT_LIST,
  STRING,
} from '@platform/cloud-core';
import { CurrentPrincipal, type Principal } from '@platform/identity';
import { VolumesService } from './volumes.service.js';

const VOLUME = {
  id: STRING,
  name: NULLABLE_STRING,
  status: { type: 'string', description: 'creating, available, in-use, error, deleting, ...' },
  size: { ...INTEGER, description: 'GiB' },
  volume_type: NULLABLE_STRING,
  bootable: { type: 'string', description: '`"true"` or `"false"`, as Cinder writes it' },
  attachments: OBJECT_LIST,
  availability_zone: NULLABLE_STRING,
  created_at: STRING,
};
const NOT_FOUND_UPSTREAM = [404, 'not_found', 'no volume of the project has this id'] as const;

/** Volumes (Cinder), read-only here: permission category `compute`. */
@ApiTags('cloud: volumes')
@Controller('cloud')
export class VolumesController {
  constructor(private readonly volumes: VolumesService) {}

  @Get('volumes')
  @ApiUpstreamData({
    list: true,
    properties: VOLUME,
    description: "the project's volumes (Cinder `volumes/detail`)",
  })
  @CloudRoute({ permission: 'compute:read' })
  list(@CurrentPrincipal() principal: Principal) {
    return this.volumes.list(principal);
  }

  @Get('volumes/:id')
  @ApiUpstreamData({ properties: VOLUME, description: 'the volume as Cinder shows it' })
  @CloudRoute({ permission: 'compute:read', errors: [NOT_FOUND_UPSTREAM] })
  show(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.volumes.show(principal, id);
  }
}
