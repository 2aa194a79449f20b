import { Body, Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { ApiData, type ErrorDoc, IdParam } from '@platform/core';
import { CurrentPrincipal, type Principal } from '@platform/identity';
import { CreateWorkspaceBody, WorkspaceResponseDto } from './workspaces.dto.js';
import { WorkspacesService } from './workspaces.service.js';
import { WorkspaceRoute } from './workspace-route.decorator.js';

const NOT_FOUND: ErrorDoc = [
  404,
  'not_found',
  'the organization is unknown or not visible to the caller, or none of its workspaces has this id',
];
const INVALID: ErrorDoc = [
  422,
  'validation_failed',
  '`details.fields` names each failing field (a `profile` the cluster does not have among them); nothing is written',
];
const DUPLICATE: ErrorDoc = [
  409,
  'conflict',
  "the organization already has a workspace of this name, or the organization's namespace belongs to another tenant",
];

@ApiTags('workspaces')
@Controller('workspaces')
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspacesService) {}

  @Get()
  @ApiData(WorkspaceResponseDto, { list: true, description: "the organization's workspaces" })
  @WorkspaceRoute('read')
  list(@CurrentPrincipal() principal: Principal) {
    return this.workspaces.list(principal);
  }

  @Post()
  @HttpCode(202)
  @ApiData(WorkspaceResponseDto, {
    status: 202,
    description: 'the new workspace as it stands (`Pending`); poll it until `Ready`',
  })
  @WorkspaceRoute('create', [INVALID, DUPLICATE])
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateWorkspaceBody) {
    return this.workspaces.create(principal, body);
  }

  @Get(':id')
  @ApiData(WorkspaceResponseDto, { description: 'the workspace' })
  @WorkspaceRoute('read', [NOT_FOUND])
  show(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string) {
    return this.workspaces.show(principal, id);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({
    description: 'the operator deletes the instance it created, or releases a claimed one',
  })
  @WorkspaceRoute('delete', [NOT_FOUND])
  delete(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string) {
    return this.workspaces.delete(principal, id);
  }
}
