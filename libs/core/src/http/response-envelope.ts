import { SetMetadata } from '@nestjs/common';

/** A page of a list together with the count before limit/offset. */
export class ListResult<T> {
  constructor(
    readonly items: T[],
    readonly total?: number,
  ) {}
}

export interface EnvelopeMetadata {
  organization_id: string | null;
  project_id?: string;
  timestamp: string;
  count?: number;
  total?: number;
}

export interface Envelope<T> {
  metadata: EnvelopeMetadata;
  data: T;
}

export const RAW_RESPONSE = 'platform:raw-response';

/** Opts a route out of the success envelope: probes, metrics, documents with shapes of their own. */
export const RawResponse = (): MethodDecorator & ClassDecorator => SetMetadata(RAW_RESPONSE, true);
