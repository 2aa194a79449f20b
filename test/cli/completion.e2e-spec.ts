import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { CliUser } from './run-platform.js';

/** No API is involved: completion is the CLI's own knowledge of its commands. */
const user = new CliUser('http://127.0.0.1:9');
const complete = async (...typed: string[]) =>
  (await user.run('__complete', ...typed)).stdout.split('\n').filter(Boolean);

describe('platform completion', () => {
  it('completes the first word from every command', async () => {
    expect(await complete('')).toEqual([
      'completion',
      'login',
      'logout',
      'orgs',
      'projects',
      'tokens',
      'alerts',
      'routes',
      'silences',
      'rgw',
      'apps',
      'servers',
    ]);
    expect(await complete('lo')).toEqual(['login', 'logout']);
  });

  it('completes the words of a command, skipping options and their values', async () => {
    expect(await complete('alerts', '')).toEqual(['list', 'ack', 'unack', 'test']);
    expect(await complete('-o', 'json', 'rgw', '')).toEqual(['users']);
    expect(await complete('rgw', 'users', 'l')).toEqual(['list']);
  });

  it("completes a command's options and the values of --output", async () => {
    expect(await complete('projects', 'create', '--')).toEqual([
      '--output',
      '--api-url',
      '--help',
      '--org',
      '--name',
    ]);
    expect(await complete('alerts', 'list', '--project', 'p1', '--s')).toEqual(['--status']);
    expect(await complete('orgs', 'list', '--output', '')).toEqual(['json', 'table']);
  });

  it('prints a bash script that hands the typed words to the CLI and reads its answer', async () => {
    const script = await user.run('completion', 'bash');
    expect(script.code).toBe(0);
    // A stand-in `platform` answers the arguments it was given, one a line, as candidates.
    const replies = execFileSync(
      'bash',
      [
        '-c',
        `platform() { printf '%s\\n' "$@"; }
${script.stdout}
COMP_WORDS=(platform alerts 'l m'); COMP_CWORD=2; _platform_complete
printf '%s\\n' "\${COMPREPLY[@]}"
complete -p platform`,
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    expect(replies).toBe(
      '__complete\nalerts\nl m\ncomplete -o default -F _platform_complete platform\n',
    );
  });

  it('prints a zsh script that registers the completion function', async () => {
    const script = await user.run('completion', 'zsh');
    expect(script.stdout).toMatch(/^#compdef platform\n/);
    expect(script.stdout).toContain('platform __complete "${(@)words[2,CURRENT]}"');
    expect(script.stdout).toContain('compdef _platform platform');
  });

  it('exits 2 for a shell it has no script for', async () => {
    expect(await user.run('completion', 'fish')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'platform: usage: platform completion bash|zsh\n',
    });
  });
});
