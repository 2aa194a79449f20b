import { formatCidr, parseCidr } from './ip-math.js';
import {
  badRequest,
  bodyOf,
  created,
  filtered,
  type NeutronObject,
  type NeutronRoute,
  type NeutronState,
  noContent,
  ok,
  refuse,
  text,
} from './neutron-state.js';

const GROUP_FIELDS = ['name', 'description', 'stateful', 'tenant_id', 'project_id'];
const GROUP_UPDATE_FIELDS = ['name', 'description'];
const RULE_FIELDS = [
  'security_group_id',
  'direction',
  'ethertype',
  'protocol',
  'port_range_min',
  'port_range_max',
  'remote_ip_prefix',
  'remote_group_id',
  'remote_address_group_id',
  'description',
  'tenant_id',
  'project_id',
];
/** The protocols Neutron names; any other is a number 0..255. */
const PROTOCOLS = [
  'ah',
  'dccp',
  'egp',
  'esp',
  'gre',
  'hopopt',
  'icmp',
  'icmpv6',
  'igmp',
  'ip',
  'ipip',
  'ipv6-encap',
  'ipv6-frag',
  'ipv6-icmp',
  'ipv6-nonxt',
  'ipv6-opts',
  'ipv6-route',
  'ospf',
  'pgm',
  'rsvp',
  'sctp',
  'tcp',
  'udp',
  'udplite',
  'vrrp',
  'any',
];
const WITH_PORTS = ['tcp', 'udp', 'sctp', 'dccp', 'udplite', '6', '17', '132', '33', '136'];
const ICMP = ['icmp', 'icmpv6', 'ipv6-icmp', '1', '58'];

/** Every group starts out allowing all egress, in both address families. */
const egressRules = [
  { direction: 'egress', ethertype: 'IPv4' },
  { direction: 'egress', ethertype: 'IPv6' },
];

function rule(state: NeutronState, projectId: string, fields: Record<string, unknown>) {
  return state.stamp(projectId, {
    protocol: null,
    port_range_min: null,
    port_range_max: null,
    remote_ip_prefix: null,
    remote_group_id: null,
    remote_address_group_id: null,
    normalized_cidr: null,
    ...fields,
  });
}

function createGroup(
  state: NeutronState,
  projectId: string,
  fields: Record<string, unknown>,
  extraRules: Array<Record<string, unknown>> = [],
): NeutronObject {
  const group = state.store(
    projectId,
    'security_groups',
    state.stamp(projectId, { stateful: true, shared: false, ...fields }),
  );
  for (const fields of [...egressRules, ...extraRules]) {
    const made = rule(state, projectId, { security_group_id: group.id, ...fields });
    state.store(projectId, 'security_group_rules', made);
  }
  return group;
}

/** The project's `default` group (ingress from its own members, all egress), made once. */
export function ensureDefaultSecurityGroup(state: NeutronState, projectId: string): void {
  if (state.list(projectId, 'security_groups').some((g) => g.name === 'default')) return;
  const group = createGroup(state, projectId, {
    name: 'default',
    description: 'Default security group',
  });
  for (const ethertype of ['IPv4', 'IPv6']) {
    state.store(
      projectId,
      'security_group_rules',
      rule(state, projectId, {
        security_group_id: group.id,
        direction: 'ingress',
        ethertype,
        remote_group_id: group.id,
      }),
    );
  }
}

/** Security groups and their rules, checked the way Neutron checks them. */
export function securityGroupRoutes(on: NeutronRoute, state: NeutronState): void {
  const rulesOf = (projectId: string, groupId: string) =>
    state.list(projectId, 'security_group_rules').filter((r) => r.security_group_id === groupId);
  const view = (projectId: string, group: NeutronObject) => ({
    ...group,
    security_group_rules: rulesOf(projectId, group.id),
  });
  const group = (projectId: string, id: string) =>
    state.own(projectId, 'security_groups').get(id) ??
    refuse(404, 'SecurityGroupNotFound', `Security group ${id} does not exist`);

  on('GET', /^\/v2\.0\/security-groups$/, (r) =>
    ok({
      security_groups: filtered(state.list(r.projectId, 'security_groups'), r.query).map((g) =>
        view(r.projectId, g),
      ),
    }),
  );
  on('GET', /^\/v2\.0\/security-groups\/([^/]+)$/, (r, [id]) =>
    ok({ security_group: view(r.projectId, group(r.projectId, id)) }),
  );
  on('POST', /^\/v2\.0\/security-groups$/, (r) => {
    const body = bodyOf(r, 'security_group', GROUP_FIELDS);
    if (body.name === 'default') {
      refuse(409, 'SecurityGroupDefaultAlreadyExists', 'Default security group already exists.');
    }
    const made = createGroup(state, r.projectId, { name: '', ...body });
    return created({ security_group: view(r.projectId, made) });
  });
  on('PUT', /^\/v2\.0\/security-groups\/([^/]+)$/, (r, [id]) => {
    const target = group(r.projectId, id);
    const body = bodyOf(r, 'security_group', GROUP_UPDATE_FIELDS);
    if (target.name === 'default' && body.name !== undefined && body.name !== 'default') {
      refuse(
        409,
        'SecurityGroupCannotUpdateDefault',
        'Updating default security group not allowed.',
      );
    }
    return ok({ security_group: view(r.projectId, state.update(target, body)) });
  });
  on('DELETE', /^\/v2\.0\/security-groups\/([^/]+)$/, (r, [id]) => {
    const target = group(r.projectId, id);
    if (target.name === 'default') {
      refuse(
        409,
        'SecurityGroupCannotRemoveDefault',
        'Insufficient rights for removing default security group.',
      );
    }
    if (
      state.list(r.projectId, 'ports').some((p) => (p.security_groups as string[]).includes(id))
    ) {
      refuse(409, 'SecurityGroupInUse', `Security Group ${id} in use.`);
    }
    // Its own rules go with it, and so do other groups' rules naming it as their remote group.
    const rules = state.own(r.projectId, 'security_group_rules');
    for (const [ruleId, candidate] of rules) {
      if (candidate.security_group_id === id || candidate.remote_group_id === id)
        rules.delete(ruleId);
    }
    state.own(r.projectId, 'security_groups').delete(id);
    return noContent();
  });

  const ruleById = (projectId: string, id: string) =>
    state.own(projectId, 'security_group_rules').get(id) ??
    refuse(404, 'SecurityGroupRuleNotFound', `Security group rule ${id} does not exist`);
  on('GET', /^\/v2\.0\/security-group-rules$/, (r) =>
    ok({
      security_group_rules: filtered(state.list(r.projectId, 'security_group_rules'), r.query),
    }),
  );
  on('GET', /^\/v2\.0\/security-group-rules\/([^/]+)$/, (r, [id]) =>
    ok({ security_group_rule: ruleById(r.projectId, id) }),
  );
  on('POST', /^\/v2\.0\/security-group-rules$/, (r) => {
    const body = bodyOf(r, 'security_group_rule', RULE_FIELDS);
    group(r.projectId, text(body.security_group_id));
    const fields = checkedRule(body);
    if (fields.remote_group_id) group(r.projectId, text(fields.remote_group_id));
    const same = rulesOf(r.projectId, text(body.security_group_id)).find((existing) =>
      [
        'direction',
        'ethertype',
        'protocol',
        'port_range_min',
        'port_range_max',
        'remote_ip_prefix',
        'remote_group_id',
      ].every((key) => (existing[key] ?? null) === (fields[key] ?? null)),
    );
    if (same) {
      refuse(
        409,
        'SecurityGroupRuleExists',
        `Security group rule already exists. Rule id is ${same.id}.`,
      );
    }
    const made = rule(state, r.projectId, { description: '', ...fields });
    return created({ security_group_rule: state.store(r.projectId, 'security_group_rules', made) });
  });
  on('DELETE', /^\/v2\.0\/security-group-rules\/([^/]+)$/, (r, [id]) => {
    ruleById(r.projectId, id);
    state.own(r.projectId, 'security_group_rules').delete(id);
    return noContent();
  });
}

/** A rule's fields, normalized (protocol lower case, CIDR to its network) or refused (400). */
function checkedRule(body: Record<string, unknown>): Record<string, unknown> {
  const { direction, ethertype = 'IPv4' } = body;
  if (direction !== 'ingress' && direction !== 'egress') {
    badRequest(
      `Invalid input for direction. Reason: ${text(direction)} is not in ['ingress', 'egress'].`,
    );
  }
  if (ethertype !== 'IPv4' && ethertype !== 'IPv6') {
    badRequest(
      `Invalid input for ethertype. Reason: ${text(ethertype)} is not in ['IPv4', 'IPv6'].`,
    );
  }
  const protocol =
    body.protocol === undefined || body.protocol === null
      ? null
      : text(body.protocol).toLowerCase();
  if (
    protocol !== null &&
    !PROTOCOLS.includes(protocol) &&
    !(/^\d{1,3}$/.test(protocol) && Number(protocol) <= 255)
  ) {
    refuse(
      400,
      'SecurityGroupRuleInvalidProtocol',
      `Security group rule protocol ${protocol} not supported.`,
    );
  }
  const min = body.port_range_min ?? null;
  const max = body.port_range_max ?? null;
  if ((min !== null || max !== null) && protocol === null) {
    refuse(
      400,
      'SecurityGroupProtocolRequiredWithPorts',
      'Must also specify protocol if port range is given.',
    );
  }
  if (protocol !== null && WITH_PORTS.includes(protocol)) {
    for (const port of [min, max]) {
      if (port !== null && (typeof port !== 'number' || port < 1 || port > 65535)) {
        refuse(400, 'SecurityGroupInvalidPortValue', `Invalid value for port ${text(port)}.`);
      }
    }
    if (min !== null && max !== null && (min as number) > (max as number)) {
      refuse(
        400,
        'SecurityGroupInvalidPortRange',
        'For TCP/UDP protocols, port_range_min must be <= port_range_max',
      );
    }
  } else if (protocol !== null && ICMP.includes(protocol)) {
    if (max !== null && min === null) {
      refuse(
        400,
        'SecurityGroupMissingIcmpType',
        `ICMP code (port-range-max) ${text(max)} is provided but ICMP type (port-range-min) is missing.`,
      );
    }
  } else if (min !== null || max !== null) {
    refuse(
      400,
      'SecurityGroupInvalidProtocolForPortRange',
      `Invalid protocol ${text(protocol)} for port range, only supported for TCP, UDP, UDPLITE, SCTP and DCCP.`,
    );
  }
  if (body.remote_ip_prefix && body.remote_group_id) {
    refuse(
      400,
      'SecurityGroupRemoteGroupAndRemoteIpPrefix',
      'Only remote_ip_prefix or remote_group_id may be provided.',
    );
  }
  let remote: string | null = null;
  let normalized: string | null = null;
  if (body.remote_ip_prefix) {
    const cidr = parseCidr(text(body.remote_ip_prefix));
    if (!cidr)
      return badRequest(
        `Invalid input for remote_ip_prefix. Reason: '${text(body.remote_ip_prefix)}' is not a valid IP subnet.`,
      );
    if (`IPv${cidr.version}` !== ethertype) {
      badRequest(
        `Invalid input for operation: Conflicting value ethertype ${text(ethertype)} for CIDR ${text(body.remote_ip_prefix)}.`,
      );
    }
    remote = text(body.remote_ip_prefix);
    normalized = formatCidr(cidr);
  }
  return {
    security_group_id: body.security_group_id,
    direction,
    ethertype,
    protocol,
    port_range_min: min,
    port_range_max: max,
    remote_ip_prefix: remote,
    normalized_cidr: normalized,
    remote_group_id: body.remote_group_id ?? null,
    ...(body.description !== undefined ? { description: body.description } : {}),
  };
}
