/**
 * Users live in the RGW tenant of their organization (4-cloud-resources.md): the tenant is
 * `org<organization uuid without dashes>`, the uid `<tenant>$<name>`. RGW keeps bucket names
 * unique per tenant, so organizations never collide on names or see each other's.
 */
export const rgwTenantOf = (organizationId: string) => `org${organizationId.replace(/-/g, '')}`;

export const rgwUidOf = (organizationId: string, name: string) =>
  `${rgwTenantOf(organizationId)}$${name}`;
