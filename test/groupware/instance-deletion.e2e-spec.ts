import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RCLONE_IMAGE } from '@platform/groupware';
import { CoreKinds, type KubeObject, ThirdPartyKinds } from '@platform/kube';
import { eventually } from '@platform/testing';
import {
  createInstance,
  finishJob,
  type InstanceTest,
  InstanceKind,
  instanceOf,
  startInstanceTest,
  updateSpec,
  waitForPhase,
} from './instance-support.js';

const NS = 'gwi-deletion';

type PodJob = KubeObject<{
  schedule?: string;
  jobTemplate?: { spec: { template: { spec: PodSpec } } };
  template?: { spec: PodSpec };
}>;
interface PodSpec {
  containers: Array<{
    image: string;
    args?: string[];
    command?: string[];
    env: Array<Record<string, unknown>>;
  }>;
  volumes?: Array<{ persistentVolumeClaim: { claimName: string; readOnly: boolean } }>;
}

const backups = {
  data: {
    enabled: true,
    bucket: 'groupware-backups',
    endpoint: 'https://s3.example.com',
    region: 'eu-central-1',
    credentialsSecret: 'backup-s3',
    schedule: '30 2 * * *',
    deleteOnCleanup: true,
  },
};

describe('GroupwareInstance: data backups and deletion', () => {
  let test: InstanceTest;
  const now = () => test.operator.clock.now().toISOString();

  beforeAll(async () => {
    test = await startInstanceTest();
    await createInstance(test, NS, 'keep', {});
    await createInstance(test, NS, 'team', { persistence: { enabled: true }, backups });
    await waitForPhase(test, NS, 'team', 'Creating');
  });

  afterAll(async () => {
    await test.close();
  });

  it('shares the namespace’s HelmRepository between its instances, each an owner', async () => {
    const owners = await eventually(
      () =>
        test.server
          .get<KubeObject>(ThirdPartyKinds.HelmRepository, NS, 'nextcloud')
          ?.metadata.ownerReferences?.map((owner) => owner.name)
          .sort(),
      (names) => names?.length === 2,
    );
    expect(owners).toEqual(['keep', 'team']);
  });

  it('keeps a data-backup CronJob running rclone with the S3 keys by reference', async () => {
    const cron = await eventually(() =>
      test.server.get<PodJob>(CoreKinds.CronJob, NS, 'team-data-backup'),
    );
    expect(cron.spec!.schedule).toBe('30 2 * * *');
    const pod = cron.spec!.jobTemplate!.spec.template.spec;
    expect(pod.containers[0]!.image).toBe(RCLONE_IMAGE);
    expect(pod.containers[0]!.args).toEqual([
      'sync',
      '/data',
      `backup:groupware-backups/${NS}/team/data`,
    ]);
    expect(pod.containers[0]!.env).toEqual([
      { name: 'RCLONE_CONFIG_BACKUP_TYPE', value: 's3' },
      { name: 'RCLONE_CONFIG_BACKUP_PROVIDER', value: 'Other' },
      { name: 'RCLONE_CONFIG_BACKUP_ENDPOINT', value: 'https://s3.example.com' },
      { name: 'RCLONE_CONFIG_BACKUP_REGION', value: 'eu-central-1' },
      {
        name: 'RCLONE_CONFIG_BACKUP_ACCESS_KEY_ID',
        valueFrom: { secretKeyRef: { name: 'backup-s3', key: 'accessKey' } },
      },
      {
        name: 'RCLONE_CONFIG_BACKUP_SECRET_ACCESS_KEY',
        valueFrom: { secretKeyRef: { name: 'backup-s3', key: 'secretKey' } },
      },
    ]);
    expect(pod.volumes).toEqual([
      { name: 'data', persistentVolumeClaim: { claimName: 'team-nextcloud', readOnly: true } },
    ]);
  });

  it('removes the CronJob when backups are disabled, and brings it back when enabled', async () => {
    await updateSpec(test, NS, 'team', (spec) => ({
      ...spec,
      backups: { data: { ...backups.data, enabled: false } },
    }));
    await eventually(
      () => test.server.get(CoreKinds.CronJob, NS, 'team-data-backup') === undefined,
      {
        what: 'the CronJob removed',
      },
    );
    await updateSpec(test, NS, 'team', (spec) => ({ ...spec, backups }));
    await eventually(() => test.server.get(CoreKinds.CronJob, NS, 'team-data-backup'));
  });

  it('deletes the backup data before the finalizer goes, with deleteOnCleanup', async () => {
    await test.operator.settled();
    await test.operator.client.delete(InstanceKind, NS, 'team');
    const cleanup = await eventually(
      () => test.server.get<PodJob>(CoreKinds.Job, NS, 'team-data-cleanup'),
      { what: 'the cleanup Job' },
    );
    expect(cleanup.spec!.template!.spec.containers[0]!.command).toEqual([
      '/bin/sh',
      '-c',
      'rclone purge "$BACKUP_PATH" || [ $? -eq 3 ]',
    ]);
    expect(cleanup.spec!.template!.spec.containers[0]!.env.at(-1)).toEqual({
      name: 'BACKUP_PATH',
      value: `backup:groupware-backups/${NS}/team`,
    });
    await test.operator.settled();
    const terminating = instanceOf(test.server, NS, 'team')!;
    expect(terminating.metadata.deletionTimestamp).toBeDefined();
    expect(terminating.metadata.finalizers).toEqual(['k8s.neutral.com/groupware-instance']);

    // A failed cleanup is run again, and the finalizer stays meanwhile.
    finishJob(test.server, NS, 'team-data-cleanup', { succeeded: false, at: now() });
    await test.operator.advance({ seconds: 29 });
    expect(test.server.get<PodJob>(CoreKinds.Job, NS, 'team-data-cleanup')!.metadata.uid).toBe(
      cleanup.metadata.uid,
    );
    await test.operator.advance({ seconds: 2 });
    await eventually(
      () => test.server.get<PodJob>(CoreKinds.Job, NS, 'team-data-cleanup'),
      (job) => job !== undefined && job.metadata.uid !== cleanup.metadata.uid,
      { what: 'a new cleanup Job' },
    );
    expect(instanceOf(test.server, NS, 'team')).toBeDefined();

    finishJob(test.server, NS, 'team-data-cleanup', { succeeded: true, at: now() });
    await eventually(() => instanceOf(test.server, NS, 'team') === undefined, {
      what: 'the instance gone',
    });
    // Owned objects go by garbage collection.
    await eventually(() => test.server.get(ThirdPartyKinds.HelmRelease, NS, 'team') === undefined);
    expect(test.server.get(CoreKinds.Secret, NS, 'team-admin')).toBeUndefined();
    expect(test.server.get(CoreKinds.CronJob, NS, 'team-data-backup')).toBeUndefined();
    // Another instance of the namespace still uses the shared HelmRepository.
    await eventually(
      () =>
        test.server.get<KubeObject>(ThirdPartyKinds.HelmRepository, NS, 'nextcloud')?.metadata
          .ownerReferences?.length === 1,
      { what: 'the deleted instance dropped from the owners' },
    );
    expect(
      test.server
        .get<KubeObject>(ThirdPartyKinds.HelmRepository, NS, 'nextcloud')!
        .metadata.ownerReferences!.map((owner) => owner.name),
    ).toEqual(['keep']);
  });

  it('removes the HelmRepository with the last instance of the namespace', async () => {
    await test.operator.client.delete(InstanceKind, NS, 'keep');
    await eventually(() => instanceOf(test.server, NS, 'keep') === undefined);
    await eventually(
      () => test.server.get(ThirdPartyKinds.HelmRepository, NS, 'nextcloud') === undefined,
      { what: 'the HelmRepository collected' },
    );
    expect(test.server.list(CoreKinds.Job, NS)).toEqual([]);
  });
});
