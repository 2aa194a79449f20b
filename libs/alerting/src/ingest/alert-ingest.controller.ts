import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { ApiData, MultiErrorEnvelope } from '@platform/core';
import {
  ApiAlertingWriteErrors,
  alertingInvalidDoc,
  alertingNotFoundDoc,
} from '../alerting-errors.openapi.js';
import { IngestResponseDto, IngestTokenResponseDto } from '../alerting.openapi.js';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import { AlertIngestService } from './alert-ingest.service.js';
import { IngestTokensService } from './ingest-tokens.service.js';
import { MintIngestTokenBody } from './ingest-tokens.dto.js';

/**
 * The Alertmanager webhook receiver. Credentials: an ingest token of this project (bearer or
 * `X-Access-Token`), an API token with `alerts:write`, or a member with `alerts:create`. An
 * ingest token's severity mapping applies to the alerts it delivers.
 * Errors use the ingest envelope (`errors: [{code, message, status}]` beside the general
 * fields). Not audited.
 */
@ApiTags('alerts')
@Controller('projects/:project_id')
@RequiresCapability('alerts')
export class AlertIngestController {
  constructor(private readonly ingestion: AlertIngestService) {}

  @Post('alerts')
  @ApiData(IngestResponseDto, { description: 'the alerts accepted, and those refused by index' })
  @ApiAlertingWriteErrors(
    alertingNotFoundDoc(),
    [422, 'malformed_payload', 'the payload has no non-empty `alerts` array'],
    [502, 'nothing_processed', 'no alert of the payload could be stored'],
  )
  @HttpCode(200)
  @MultiErrorEnvelope()
  @Authenticated({
    scope: 'project',
    permission: 'alerts:create',
    scopeResource: 'alerts',
    acceptsIngestToken: true,
  })
  @ApiBody({ description: 'Alertmanager webhook payload, version 4' })
  ingest(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    return this.ingestion.ingest(principal.projectId!, body, principal.token);
  }
}

/**
 * Minting ingest tokens is a custom action on the `alerts` resource at manage level: a static
 * token needs `alerts:manage` or `alerts:*` (`alert_ingest_tokens:*` alone does not do), a
 * member the alerts delete permission (org admins have it).
 */
@ApiTags('alerts')
@Controller('projects/:project_id')
@RequiresCapability('alerts')
export class IngestTokensController {
  constructor(private readonly ingestTokens: IngestTokensService) {}

  @Post('alert_ingest_tokens')
  @ApiData(IngestTokenResponseDto, {
    status: 201,
    description: 'the token, with its secret and a receiver snippet',
  })
  @ApiAlertingWriteErrors(
    alertingNotFoundDoc(),
    alertingInvalidDoc(
      'name; a current_password that is not the password of the account; a severity_map that is not an object, has more than 50 entries, an empty key, a key over 64 characters, two keys differing only in case, or a value not one of critical, high, warning, info; a default_severity not one of those',
    ),
    [
      403,
      'reauthentication_required',
      'a session older than 15 minutes that sends no current_password',
    ],
    [429, 'too_many_attempts', 'too many wrong passwords for this account; Retry-After says when'],
  )
  @Authenticated({
    scope: 'project',
    permission: 'alerts:delete',
    scopeResource: 'alerts',
    scopeLevel: 'delete',
  })
  mint(@CurrentPrincipal() principal: Principal, @Body() body: MintIngestTokenBody) {
    return this.ingestTokens.mint(principal, principal.projectId!, {
      name: body?.name?.trim(),
      currentPassword: body?.current_password,
      severityMap: body?.severity_map,
      defaultSeverity: body?.default_severity,
    });
  }
}
