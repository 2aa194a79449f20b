import { Controller, Get } from '@nestjs/common';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import { CloudRoute } from '@platform/cloud-core';
import { ApiData } from '@platform/core';
import { ObjectNameParam, OBJECT_NAME } from '../garden/names.js';
import { CloudProfileDto } from './cloud-profile.view.js';
import { CloudProfilesService } from './cloud-profiles.service.js';

/** The Gardener CloudProfiles a cluster is created from: versions, regions, machine types. */
@ApiTags('k8s: cloud profiles')
@Controller('k8s')
export class CloudProfilesController {
  constructor(private readonly profiles: CloudProfilesService) {}

  @Get('cloudprofiles')
  @ApiData(CloudProfileDto, {
    list: true,
    description: "the garden's cloud profiles, by name",
  })
  @CloudRoute({ permission: 'kubernetes:read' })
  list() {
    return this.profiles.list();
  }

  @Get('cloudprofiles/:name')
  @ApiParam({
    name: 'name',
    description: "the profile's name",
    schema: { type: 'string', pattern: OBJECT_NAME.source },
  })
  @ApiData(CloudProfileDto, { description: 'the cloud profile' })
  @CloudRoute({
    permission: 'kubernetes:read',
    errors: [[404, 'not_found', 'the garden has no cloud profile of this name']],
  })
  show(@ObjectNameParam('name') name: string) {
    return this.profiles.show(name);
  }
}
