import { execFileSync } from 'node:child_process';
import { describe, expect, it } from '@jest/globals';
import type { V1Job } from '@kubernetes/client-node';
import type { GroupwareInstanceSpec } from '../crds/types.js';
import { occJobName } from '../occ/occ-job.js';
import {
  appsScript,
  appsWanted,
  attemptOf,
  jobState,
  pendingApps,
  retryAt,
} from './instance-apps.js';

const spec = (apps: GroupwareInstanceSpec['apps']) => ({ apps }) as GroupwareInstanceSpec;

describe('Apps of a GroupwareInstance', () => {
  it('turns each named app into enable or disable commands, settings after enabling', () => {
    expect(
      appsWanted(
        spec({
          calendar: { enabled: true },
          deck: { enabled: false },
          richdocuments: {
            enabled: true,
            wopiUrl: 'https://office.example.com',
            wopiAllowlist: ['10.0.0.0/8', '192.168.1.5'],
          },
          spreed: { enabled: true, stunServers: ['stun.example.com:3478'] },
          custom: [{ appId: 'integration_openproject', enabled: true }],
        }),
      ),
    ).toEqual([
      { appId: 'calendar', enabled: true, commands: [['app:enable', 'calendar']] },
      { appId: 'deck', enabled: false, commands: [['app:disable', 'deck']] },
      {
        appId: 'richdocuments',
        enabled: true,
        commands: [
          ['app:enable', 'richdocuments'],
          ['config:app:set', 'richdocuments', 'wopi_url', '--value=https://office.example.com'],
          ['config:app:set', 'richdocuments', 'wopi_allowlist', '--value=10.0.0.0/8,192.168.1.5'],
        ],
      },
      {
        appId: 'spreed',
        enabled: true,
        commands: [
          ['app:enable', 'spreed'],
          ['config:app:set', 'spreed', 'stun_servers', '--value=["stun.example.com:3478"]'],
        ],
      },
      {
        appId: 'integration_openproject',
        enabled: true,
        commands: [['app:enable', 'integration_openproject']],
      },
    ]);
    expect(appsWanted(spec(undefined))).toEqual([]);
  });

  it('passes TURN secrets by reference, substituted in the Job from its environment', () => {
    const [talk] = appsWanted(
      spec({
        spreed: {
          enabled: true,
          turnServers: [
            {
              server: 'turn.example.com:3478',
              schemes: 'turn,turns',
              protocols: 'udp,tcp',
              secretRef: { name: 'turn', key: 'secret' },
            },
          ],
        },
      }),
    );
    expect(talk!.commands[1]).toEqual([
      'config:app:set',
      'spreed',
      'turn_servers',
      '--value=[{"schemes":"turn,turns","server":"turn.example.com:3478","secret":"\\u0000env:TURN_SECRET_0","protocols":"udp,tcp"}]',
    ]);
    expect(talk!.env).toEqual([
      { name: 'TURN_SECRET_0', valueFrom: { secretKeyRef: { name: 'turn', key: 'secret' } } },
    ]);
    const lines = appsScript(talk!.commands).split('\n');
    expect(lines[0]).toBe('set -e');
    expect(lines[1]).toBe('php /var/www/html/occ --no-interaction app:enable spreed');
    expect(lines[2]).toMatch(
      /^php \/var\/www\/html\/occ --no-interaction config:app:set spreed turn_servers --value="\$\(php -r '\$v=json_decode\(base64_decode\(.*getenv.*'\)"$/,
    );
    // Inside the single-quoted shell word, PHP's quotes read '\''.
    const encoded = /base64_decode\('\\''([^']+)'\\''\)/.exec(lines[2]!)![1]!;
    expect(Buffer.from(encoded, 'base64').toString()).toBe(
      (talk!.commands[1]![3] as string).slice(8),
    );
    // Through a real shell, with `php` stubbed: occ gets the one-liner's output as its value.
    const stub = `php() { if [ "$1" = -r ]; then printf '%s' "$2"; else printf '%s|' "$@"; fi; }`;
    const words = execFileSync('/bin/sh', ['-c', `${stub}; ${lines[2]}`], { encoding: 'utf8' });
    const value = words.split('|')[5]!;
    expect(value.startsWith('--value=$v=json_decode(base64_decode(')).toBe(true);
    expect(value).toContain(`strncmp($x,"\\0env:",5)===0`);
    expect(appsScript([['app:enable', 'deck']])).toBe(
      'set -e\nphp /var/www/html/occ --no-interaction app:enable deck',
    );
  });

  it('leaves out what status.apps already records, unless the settings changed', () => {
    const wanted = appsWanted(
      spec({
        calendar: { enabled: true },
        richdocuments: { enabled: true, wopiUrl: 'https://office.example.com' },
      }),
    );
    const succeeded = { status: { succeeded: 1 } } as V1Job;
    const none = () => undefined;
    expect(pendingApps('team', wanted, { calendar: true, richdocuments: true }, none)).toEqual([
      wanted[1],
    ]);
    const officeJob = occJobName('team', wanted[1]!.commands);
    expect(
      pendingApps('team', wanted, { calendar: true, richdocuments: true }, (name) =>
        name === officeJob ? succeeded : undefined,
      ),
    ).toEqual([]);
    expect(pendingApps('team', wanted, { calendar: false }, none)).toEqual(wanted);
  });

  it('reads Job states and backs off 30 s doubling per attempt', () => {
    expect(jobState(undefined)).toBe('missing');
    expect(jobState({ status: { active: 1 } })).toBe('running');
    expect(jobState({ status: { succeeded: 1 } })).toBe('succeeded');
    const failed = (attempt: string) =>
      ({
        metadata: { annotations: { 'k8s.neutral.com/occ-attempt': attempt } },
        status: {
          failed: 1,
          conditions: [
            { type: 'Failed', status: 'True', lastTransitionTime: '2024-05-03T06:00:00Z' },
          ],
        },
      }) as unknown as V1Job;
    expect(jobState(failed('1'))).toBe('failed');
    expect(attemptOf(failed('3'))).toBe(3);
    const at = Date.parse('2024-05-03T06:00:00Z');
    expect(retryAt(failed('1'))).toBe(at + 30_000);
    expect(retryAt(failed('3'))).toBe(at + 120_000);
    expect(retryAt(failed('12'))).toBe(at + 15 * 60_000);
  });
});
