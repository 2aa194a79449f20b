import { describe, expect, it } from '@jest/globals';
import { envReference } from '../occ/occ-job.js';
import {
  deleteCommand,
  RECORDING_BACKEND,
  registerCommands,
  SIGNALING_BACKEND,
} from './talk-backends.js';
import { retryDelayMs } from './talk-jobs.js';
import { secretCopyName } from './talk-secrets.js';

const SECRET = envReference('TALK_SECRET');

describe('Talk backends', () => {
  it('registers by removing the same URL first, then adding it with the secret from the environment', () => {
    expect(registerCommands(SIGNALING_BACKEND, { url: 'wss://hpb', verifyTls: true })).toEqual([
      ['talk:signaling:delete', 'wss://hpb'],
      ['talk:signaling:add', 'wss://hpb', SECRET, '--verify'],
    ]);
    expect(registerCommands(RECORDING_BACKEND, { url: 'https://rec', verifyTls: false })).toEqual([
      ['talk:recording:delete', 'https://rec'],
      ['talk:recording:add', 'https://rec', SECRET],
    ]);
  });

  it('removes a previous URL before registering a new one', () => {
    expect(
      registerCommands(SIGNALING_BACKEND, { url: 'wss://new', verifyTls: true }, 'wss://old'),
    ).toEqual([
      ['talk:signaling:delete', 'wss://old'],
      ['talk:signaling:delete', 'wss://new'],
      ['talk:signaling:add', 'wss://new', SECRET, '--verify'],
    ]);
    expect(deleteCommand(RECORDING_BACKEND, 'https://rec')).toEqual([
      'talk:recording:delete',
      'https://rec',
    ]);
  });

  it('names secret copies after instance, purpose and server, within 63 characters', () => {
    expect(secretCopyName('team', SIGNALING_BACKEND, 'hpb')).toBe('team-talk-signaling-hpb');
    const long = secretCopyName('a'.repeat(40), RECORDING_BACKEND, 'recording.example.org');
    expect(long).toHaveLength(63);
    expect(long).toMatch(/^a{40}-talk-record-[0-9a-f]{10}$/);
    expect(secretCopyName('a'.repeat(40), RECORDING_BACKEND, 'recording.example.com')).not.toBe(
      long,
    );
  });

  it('retries failed Jobs after 30 s, doubling up to 15 minutes', () => {
    expect([1, 2, 3, 6, 7, 20].map(retryDelayMs)).toEqual([
      30_000, 60_000, 120_000, 900_000, 900_000, 900_000,
    ]);
  });
});
