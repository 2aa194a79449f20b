import { Param, type PipeTransform } from '@nestjs/common';
import { CloudErrorCode, CloudException } from '@platform/cloud-core';

/**
 * A cluster's (Shoot's) name: a lowercase DNS label of at most 12 characters without `--`.
 * Gardener refuses a Shoot whose name and project name together pass 21 characters (they make
 * the `shoot--<project>--<name>` prefix of cloud resources), and project names here are 9
 * (`p` + 8 hex digits); `--` would make that prefix ambiguous, which Gardener refuses too.
 */
export const SHOOT_NAME = /^(?=.{1,12}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SHOOT_NAME_MAX = 12;

/** A worker group's name: a lowercase DNS label of at most 15 characters (Gardener's limit). */
export const WORKER_NAME = /^(?=.{1,15}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const WORKER_NAME_MAX = 15;

/** The name of a cluster-scoped Gardener object (a CloudProfile): a DNS subdomain. */
export const OBJECT_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;

/** A Kubernetes version as CloudProfiles list them: `major.minor.patch`. */
export const KUBERNETES_VERSION = /^\d{1,3}\.\d{1,3}\.\d{1,4}$/;

/**
 * A path parameter naming a Gardener object. A value that cannot be such a name names nothing:
 * 404, as an unknown one, and nothing is sent to the garden.
 */
export const ObjectNameParam = (name: string): ParameterDecorator =>
  Param(name, new ObjectNamePipe());

class ObjectNamePipe implements PipeTransform<unknown, string> {
  transform(value: unknown): string {
    if (typeof value !== 'string' || !OBJECT_NAME.test(value))
      throw new CloudException(CloudErrorCode.NotFound, 'Resource not found');
    return value;
  }
}
