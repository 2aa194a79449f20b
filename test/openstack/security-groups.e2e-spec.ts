import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { seedNeutronPort } from '@platform/testing';
import { auditRows, failedFields, requests } from './requests.js';
import { type CloudWorld, createCloudWorld } from './support.js';

interface Rule {
  id: string;
  direction: string;
  ethertype: string;
  protocol: string | null;
  remote_group_id: string | null;
}

describe('cloud security groups and rules over Neutron', () => {
  let w: CloudWorld;
  let api: ReturnType<typeof requests>;
  const at = (path: string, projectId = w.projectId) => `${path}?project_id=${projectId}`;
  const createGroup = async (name: string, projectId = w.projectId) =>
    (await api.post(at('/cloud/security-groups', projectId), { name }).expect(201)).body.data as {
      id: string;
      security_group_rules: Rule[];
    };
  const ssh = { direction: 'ingress', protocol: 'tcp', port_range_min: 22, port_range_max: 22 };

  beforeAll(async () => {
    w = await createCloudWorld();
    api = requests(w);
  });
  afterAll(async () => {
    await w?.close();
  });

  it("lists the project's default group with Neutron's default rules", async () => {
    const listed = await api.get(at('/cloud/security-groups')).expect(200);
    expect(listed.body.metadata.count).toBe(1);
    const [group] = listed.body.data;
    expect(group).toMatchObject({ name: 'default', stateful: true });
    const rules = group.security_group_rules as Rule[];
    expect(rules.map((r) => `${r.direction} ${r.ethertype}`).sort()).toEqual([
      'egress IPv4',
      'egress IPv6',
      'ingress IPv4',
      'ingress IPv6',
    ]);
    expect(rules.filter((r) => r.direction === 'ingress').map((r) => r.remote_group_id)).toEqual([
      group.id,
      group.id,
    ]);
  });

  it('creates a group (201) from name and description, forwarded without owner fields; shows, renames (PUT) and deletes it', async () => {
    const created = await api
      .post('/cloud/security-groups', {
        project_id: w.projectId,
        tenant_id: 'someone-else',
        name: 'web',
        description: 'http and https',
      })
      .expect(201);
    expect(created.body.data).toMatchObject({ name: 'web', description: 'http and https' });
    expect(created.body.data.security_group_rules).toHaveLength(2);
    expect(w.fake.callsTo('network', 'POST').at(-1)!.body).toEqual({
      security_group: { name: 'web', description: 'http and https' },
    });
    const id = created.body.data.id as string;
    await api.get(at(`/cloud/security-groups/${id}`)).expect(200);

    const renamed = await api
      .put(at(`/cloud/security-groups/${id}`), { name: 'frontend', project_id: w.otherProjectId })
      .expect(200);
    expect(renamed.body.data).toMatchObject({
      id,
      name: 'frontend',
      description: 'http and https',
    });
    expect(w.fake.callsTo('network', 'PUT').at(-1)!.body).toEqual({
      security_group: { name: 'frontend' },
    });
    const invalid = await api.put(at(`/cloud/security-groups/${id}`), { name: '' }).expect(422);
    expect(failedFields(invalid.body)).toEqual(['name']);

    await api.del(at(`/cloud/security-groups/${id}`)).expect(204);
    await api.get(at(`/cloud/security-groups/${id}`)).expect(404);
  });

  it('answers 409 conflict for what Neutron refuses on the default group, a second default, and a group in use', async () => {
    const groups = (await api.get(at('/cloud/security-groups')).expect(200)).body.data;
    const defaultId = groups.find((g: { name: string }) => g.name === 'default').id as string;
    const rename = await api
      .put(at(`/cloud/security-groups/${defaultId}`), { name: 'renamed' })
      .expect(409);
    expect(rename.body).toMatchObject({ code: 'conflict', details: { upstream_status: 409 } });
    const remove = await api.del(at(`/cloud/security-groups/${defaultId}`)).expect(409);
    expect(remove.body.details.message).toContain('default security group');
    await api.post(at('/cloud/security-groups'), { name: 'default' }).expect(409);

    const used = await createGroup('used');
    const network = (await api.post(at('/cloud/networks'), { name: 'n' }).expect(201)).body.data;
    const port = seedNeutronPort(w.fake.resources, w.keystoneProjectOf(w.projectId)!, {
      network_id: network.id,
      security_groups: [used.id],
    });
    const inUse = await api.del(at(`/cloud/security-groups/${used.id}`)).expect(409);
    expect(inUse.body).toMatchObject({ code: 'conflict' });
    expect(inUse.body.details.message).toBe(`Security Group ${used.id} in use.`);
    w.fake.resources.collection(w.keystoneProjectOf(w.projectId)!, 'ports').delete(port.id);
    await api.del(at(`/cloud/security-groups/${used.id}`)).expect(204);
  });

  it("adds rules to a group (201), lists the group's rules, refuses a duplicate (409) and deletes a rule (204)", async () => {
    const group = await createGroup('rules');
    const created = await api
      .post(at(`/cloud/security-groups/${group.id}/rules`), {
        ...ssh,
        remote_ip_prefix: '203.0.113.0/24',
        description: 'office ssh',
        security_group_id: '00000000-0000-4000-8000-000000000000',
      })
      .expect(201);
    expect(created.body.data).toMatchObject({
      security_group_id: group.id,
      direction: 'ingress',
      ethertype: 'IPv4',
      protocol: 'tcp',
      port_range_min: 22,
      port_range_max: 22,
      remote_ip_prefix: '203.0.113.0/24',
    });
    // The group comes from the path, whatever the body says.
    expect(w.fake.callsTo('network', 'POST').at(-1)!.body).toEqual({
      security_group_rule: {
        ...ssh,
        remote_ip_prefix: '203.0.113.0/24',
        description: 'office ssh',
        security_group_id: group.id,
      },
    });
    const ruleId = created.body.data.id as string;
    const icmp = await api
      .post(at(`/cloud/security-groups/${group.id}/rules`), {
        direction: 'ingress',
        ethertype: 'IPv6',
        protocol: 'ipv6-icmp',
        port_range_min: 128,
        port_range_max: 0,
        remote_ip_prefix: '::/0',
      })
      .expect(201);

    const rules = await api.get(at(`/cloud/security-groups/${group.id}/rules`)).expect(200);
    expect(w.fake.callsTo('network', 'GET').at(-1)!.path).toBe('/v2.0/security-group-rules');
    expect(rules.body.data.map((r: Rule) => r.id)).toEqual(
      expect.arrayContaining([ruleId, icmp.body.data.id]),
    );
    expect(rules.body.data).toHaveLength(4);
    expect(
      rules.body.data.every((r: { security_group_id: string }) => r.security_group_id === group.id),
    ).toBe(true);

    const duplicate = await api
      .post(at(`/cloud/security-groups/${group.id}/rules`), {
        ...ssh,
        remote_ip_prefix: '203.0.113.0/24',
      })
      .expect(409);
    expect(duplicate.body.code).toBe('conflict');

    await api.del(at(`/cloud/security-groups/${group.id}/rules/${ruleId}`)).expect(204);
    await api.del(at(`/cloud/security-groups/${group.id}/rules/${ruleId}`)).expect(404);
  });

  it('validates a rule before calling upstream (422 naming the field)', async () => {
    const group = await createGroup('validated');
    const before = w.fake.callsTo('network', 'POST').length;
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ direction: 'sideways' }, ['direction']],
      [{ direction: 'ingress', ethertype: 'IPv5' }, ['ethertype']],
      [{ direction: 'ingress', protocol: 'carrier-pigeon' }, ['protocol']],
      [{ direction: 'ingress', protocol: '256' }, ['protocol']],
      [{ ...ssh, port_range_min: 0 }, ['port_range_min']],
      [{ ...ssh, port_range_max: 70000 }, ['port_range_max']],
      [{ ...ssh, port_range_min: 443, port_range_max: 80 }, ['port_range_max']],
      [
        { direction: 'ingress', port_range_min: 22, port_range_max: 22 },
        ['port_range_min', 'port_range_max'],
      ],
      [{ ...ssh, protocol: 'gre' }, ['port_range_min', 'port_range_max']],
      [{ direction: 'ingress', protocol: 'icmp', port_range_max: 0 }, ['port_range_max']],
      [{ direction: 'ingress', protocol: 'icmp', port_range_min: 300 }, ['port_range_min']],
      [{ ...ssh, port_range_min: 'ssh' }, ['port_range_min']],
      [{ direction: 'ingress', remote_ip_prefix: '10.0.0.0/33' }, ['remote_ip_prefix']],
      [{ direction: 'ingress', remote_ip_prefix: '::/0' }, ['remote_ip_prefix']],
      [
        { direction: 'ingress', remote_ip_prefix: '10.0.0.0/8', remote_group_id: group.id },
        ['remote_group_id'],
      ],
      [{ direction: 'ingress', remote_group_id: 'default' }, ['remote_group_id']],
    ];
    for (const [body, fields] of cases) {
      const res = await api.post(at(`/cloud/security-groups/${group.id}/rules`), body).expect(422);
      expect(res.body.code).toBe('validation_failed');
      expect(failedFields(res.body)).toEqual(fields);
    }
    expect(w.fake.callsTo('network', 'POST')).toHaveLength(before);
  });

  it("keeps groups and rules apart: another group's rule, another project's group are 404", async () => {
    const mine = await createGroup('mine');
    const other = await createGroup('other');
    const rule = await api.post(at(`/cloud/security-groups/${mine.id}/rules`), ssh).expect(201);
    const ruleId = rule.body.data.id as string;
    const wrongGroup = await api
      .del(at(`/cloud/security-groups/${other.id}/rules/${ruleId}`))
      .expect(404);
    expect(wrongGroup.body.code).toBe('not_found');
    await api.get(at(`/cloud/security-groups/${mine.id}/rules`)).expect(200);

    for (const path of [
      `/cloud/security-groups/${mine.id}`,
      `/cloud/security-groups/${mine.id}/rules`,
    ]) {
      await api.get(at(path, w.otherProjectId)).expect(404);
    }
    await api
      .put(at(`/cloud/security-groups/${mine.id}`, w.otherProjectId), { name: 'x' })
      .expect(404);
    await api.del(at(`/cloud/security-groups/${mine.id}`, w.otherProjectId)).expect(404);
    await api
      .post(at(`/cloud/security-groups/${mine.id}/rules`, w.otherProjectId), ssh)
      .expect(404);
    await api
      .del(at(`/cloud/security-groups/${mine.id}/rules/${ruleId}`, w.otherProjectId))
      .expect(404);
    await api.get(at('/cloud/security-groups'), w.stranger.jwt).expect(404);
    // Still there for its own project.
    const rules = await api.get(at(`/cloud/security-groups/${mine.id}/rules`)).expect(200);
    expect(rules.body.data.map((r: Rule) => r.id)).toContain(ruleId);
  });

  it('Axis A and B: a viewer reads only; creating groups and rules needs the security_group kind', async () => {
    const group = await createGroup('access');
    await api.get(at('/cloud/security-groups'), w.viewer.jwt).expect(200);
    await api.get(at(`/cloud/security-groups/${group.id}/rules`), w.viewer.jwt).expect(200);
    for (const res of [
      await api.post(at('/cloud/security-groups'), { name: 'v' }, w.viewer.jwt),
      await api.put(at(`/cloud/security-groups/${group.id}`), { name: 'v' }, w.viewer.jwt),
      await api.post(at(`/cloud/security-groups/${group.id}/rules`), ssh, w.viewer.jwt),
      await api.del(at(`/cloud/security-groups/${group.id}`), w.viewer.jwt),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('forbidden');
    }
    const refused = await api
      .post(at('/cloud/security-groups', w.bareProjectId), { name: 'x' })
      .expect(403);
    expect(refused.body.code).toBe('openstack_capability_not_enabled');
    const bareGroups = await api.get(at('/cloud/security-groups', w.bareProjectId)).expect(200);
    const bareDefault = bareGroups.body.data[0].id as string;
    const rule = await api
      .post(at(`/cloud/security-groups/${bareDefault}/rules`, w.bareProjectId), ssh)
      .expect(403);
    expect(rule.body.code).toBe('openstack_capability_not_enabled');
    const dev = await createGroup('dev');
    await api.del(at(`/cloud/security-groups/${dev.id}`), w.developer.jwt).expect(204);
  });

  it('audits groups and rules as security_groups.* and security_group_rules.*', async () => {
    const group = await createGroup('audited');
    await api.put(at(`/cloud/security-groups/${group.id}`), { description: 'changed' }).expect(200);
    const rule = await api.post(at(`/cloud/security-groups/${group.id}/rules`), ssh).expect(201);
    await api.del(at(`/cloud/security-groups/${group.id}/rules/${rule.body.data.id}`)).expect(204);
    await api.del(at(`/cloud/security-groups/${group.id}`)).expect(204);
    const rows = (
      await auditRows(w, [
        'security_groups.create',
        'security_groups.update',
        'security_groups.delete',
        'security_group_rules.create',
        'security_group_rules.delete',
      ])
    ).filter((r) => [group.id, rule.body.data.id].includes(r.target_id));
    expect(rows.map((r) => `${r.action} ${r.target_type}`).sort()).toEqual([
      'security_group_rules.create security_group_rule',
      'security_group_rules.delete security_group_rule',
      'security_groups.create security_group',
      'security_groups.delete security_group',
      'security_groups.update security_group',
    ]);
    expect(rows.find((r) => r.action === 'security_groups.update')!.details).toEqual({
      fields: ['description'],
    });
    expect(rows.find((r) => r.action === 'security_group_rules.create')!.details).toEqual({
      security_group_id: group.id,
    });
    expect(rows.every((r) => r.project_id === w.projectId)).toBe(true);
  });
});
